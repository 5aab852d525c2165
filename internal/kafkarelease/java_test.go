package kafkarelease

import "testing"

func TestJavaMajor(t *testing.T) {
	for out, want := range map[string]int{
		`openjdk version "17.0.15" 2025-04-15`: 17,
		`openjdk version "25" 2025-09-16`:      25,
		`java version "1.8.0_292"`:             8,
		"openjdk version \"21.0.2\" 2024-01-16\nOpenJDK Runtime Environment (build 21.0.2+13)": 21,
	} {
		got, err := JavaMajor(out)
		if err != nil || got != want {
			t.Errorf("JavaMajor(%q) = %d, %v; want %d", out, got, err, want)
		}
	}
	if _, err := JavaMajor("no version here\nsecond line"); err == nil || err.Error() != `no version in "no version here"` {
		t.Errorf("JavaMajor of output without a version: %v, want an error quoting its first line", err)
	}
}
