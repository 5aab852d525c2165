package kafkaconf

import (
	"fmt"
	"strings"
)

// CheckLibrdkafka refuses what a confluent-kafka-go client here would
// accept but could not use. librdkafka checks its properties' names and
// values itself when a client is made (callers make one, without brokers,
// before a run starts); this adds what it cannot know: that chaosbench's
// clients do not hand it OAUTHBEARER tokens, so that mechanism works only
// where librdkafka gets tokens by itself (an OIDC endpoint, or an
// unsecured token for development clusters).
func (p Props) CheckLibrdkafka() error {
	mech := p["sasl.mechanism"]
	if mech == "" {
		mech = p["sasl.mechanisms"]
	}
	if !strings.EqualFold(mech, "OAUTHBEARER") {
		return nil
	}
	if strings.EqualFold(p["sasl.oauthbearer.method"], "oidc") || strings.EqualFold(p["enable.sasl.oauthbearer.unsecure.jwt"], "true") {
		return nil
	}
	return fmt.Errorf("-X sasl.mechanism=OAUTHBEARER: client confluent: set sasl.oauthbearer.method=oidc (with sasl.oauthbearer.client.id, sasl.oauthbearer.client.secret and sasl.oauthbearer.token.endpoint.url) or enable.sasl.oauthbearer.unsecure.jwt=true: the clients here do not supply tokens to librdkafka")
}
