package kafkaconf

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/chaosbench/chaosbench/internal/clip"
)

// unsecuredToken is sasl.oauthbearer.config as librdkafka reads it with
// enable.sasl.oauthbearer.unsecure.jwt: space-separated principal=NAME
// (required), principalClaimName=sub, scope=a,b, scopeClaimName=scope,
// lifeSeconds=3600 and extension_K=V. The franz client makes its token
// from it (unsecuredOauth), the Java client its unsecured login
// handler's options (unsecuredJaasOptions): one reading for both.
type unsecuredToken struct {
	principal, principalClaim string
	scope                     string // comma-separated, "" for none
	scopeClaim                string
	life                      int  // seconds
	lifeGiven                 bool // lifeSeconds was set
	ext                       map[string]string
}

// maxTokenLife bounds lifeSeconds: the token's expiry is computed as a
// time.Duration, which an int64 of seconds would overflow (about 68
// years, far beyond any token's life).
const maxTokenLife = 1<<31 - 1

// parseUnsecuredToken reads sasl.oauthbearer.config.
func parseUnsecuredToken(config string) (unsecuredToken, error) {
	t := unsecuredToken{principalClaim: "sub", scopeClaim: "scope", life: 3600, ext: map[string]string{}}
	for _, f := range strings.Fields(config) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return t, errors.New("-X sasl.oauthbearer.config: expected space-separated name=value fields")
		}
		if e, isExt := strings.CutPrefix(k, "extension_"); isExt {
			t.ext[e] = v
			continue
		}
		switch k {
		case "principal":
			t.principal = v
		case "principalClaimName":
			t.principalClaim = v
		case "scope":
			t.scope = v
		case "scopeClaimName":
			t.scopeClaim = v
		case "lifeSeconds":
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 || n > maxTokenLife {
				return t, fmt.Errorf("-X sasl.oauthbearer.config: lifeSeconds: got %s, expected a whole number of seconds from 1 to %d", clip.Quote(v), maxTokenLife)
			}
			t.life, t.lifeGiven = n, true
		default:
			return t, fmt.Errorf("-X sasl.oauthbearer.config: unknown field %s (expected principal, principalClaimName, scope, scopeClaimName, lifeSeconds, extension_NAME)", clip.Quote(k))
		}
	}
	if t.principal == "" {
		return t, errors.New("-X sasl.oauthbearer.config: principal=NAME is required for an unsecured token")
	}
	return t, nil
}
