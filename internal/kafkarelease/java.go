package kafkarelease

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// MinJava is the oldest Java the release runs on: Kafka 4's brokers and
// its Java client, kafka-clients, both need Java 17.
const MinJava = 17

// javaVersionRE finds the version in `java -version`'s output, which
// every JVM words as `<name> version "<version>"` on its first line.
var javaVersionRE = regexp.MustCompile(`version "(\d+)(?:\.(\d+))?`)

// JavaMajor reads the major version off the output of `java -version`:
// "17.0.15" is 17, "25" is 25, and under the numbering before Java 9
// "1.8.0_292" is 8, not 1.
func JavaMajor(out string) (int, error) {
	m := javaVersionRE.FindStringSubmatch(out)
	if m == nil {
		first, _, _ := strings.Cut(out, "\n")
		return 0, fmt.Errorf("no version in %q", first)
	}
	major, _ := strconv.Atoi(m[1])
	if major == 1 && m[2] != "" {
		major, _ = strconv.Atoi(m[2])
	}
	return major, nil
}
