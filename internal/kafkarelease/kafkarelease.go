// Package kafkarelease pins the Apache Kafka release chaosbench runs, says
// where what it fetches for it is cached, and which Java runs it. It is a
// leaf, so that the cluster providers (the broker) and the members (the
// java client, kafka-clients at the broker's version) take all three from
// one place.
package kafkarelease

import (
	"fmt"
	"os"
	"path/filepath"
)

// Version is the Apache Kafka release: the brokers the local provider
// runs, and the kafka-clients the java member is built against. It is
// pinned here and nowhere else (cluster.KafkaVersion is this constant):
// the Maven projects that fetch it, the cache folders and every result
// record take it from here.
const Version = "4.4.0"

// CacheDir is the folder holding what is fetched or built once for that
// release (the broker's jars, the java member): CHAOSBENCH_CACHE if set,
// else chaosbench/ under the user's cache folder (~/.cache). It is never
// inside the source tree.
func CacheDir() (string, error) {
	if d := os.Getenv("CHAOSBENCH_CACHE"); d != "" {
		return filepath.Abs(d)
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder: set CHAOSBENCH_CACHE: %w", err)
	}
	return filepath.Join(d, "chaosbench"), nil
}
