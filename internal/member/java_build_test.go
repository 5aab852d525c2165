package member

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"sync"
	"testing"
)

var javaBuild struct {
	once sync.Once
	j    JavaMember
	err  error
}

// requireJava builds the Java member once for the package's tests (Maven
// fetches what it needs on the first build); without a JVM or Maven the
// test skips, or fails under CHAOSBENCH_REQUIRE_KAFKA, as the Kafka tests do.
func requireJava(t testing.TB) JavaMember {
	t.Helper()
	javaBuild.once.Do(func() { javaBuild.j, javaBuild.err = BuildJava(context.Background(), os.Stderr) })
	if javaBuild.err != nil {
		if os.Getenv("CHAOSBENCH_REQUIRE_KAFKA") != "" {
			t.Fatalf("the java member is required (CHAOSBENCH_REQUIRE_KAFKA is set): %v", javaBuild.err)
		}
		t.Skipf("skipping: the java member cannot be built here: %v", javaBuild.err)
	}
	return javaBuild.j
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

func stderrOf(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}
