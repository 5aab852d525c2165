package kafkatest

import (
	"context"
	"os"
	"sync"
	"testing"

	"github.com/chaosbench/chaosbench/internal/member"
)

var javaBuild struct {
	once sync.Once
	err  error
}

// RequireJava builds the java client's member once for the package's tests
// (Maven fetches what it needs on the first build), before a test starts
// java members or checks java cells. Without a JVM or Maven the test skips
// and says why, or fails under CHAOSBENCH_REQUIRE_KAFKA, as without Kafka.
func RequireJava(t testing.TB) {
	t.Helper()
	javaBuild.once.Do(func() { _, javaBuild.err = member.BuildJava(context.Background(), os.Stderr) })
	if javaBuild.err != nil {
		unavailable(t, javaBuild.err)
	}
}
