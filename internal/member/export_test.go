package member

import "testing"

// RequireJava builds the Java member for the external tests (member_test)
// before they start java members, or skips them where it cannot be built.
func RequireJava(t testing.TB) { requireJava(t) }
