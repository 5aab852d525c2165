package partitioner_test

// An external test package: the Kafka jars are found through the cluster
// package, which depends on workloads, which depends on partitioner.

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/partitioner"
)

// TestMurmur2AgreesWithJava runs Kafka's own partitioner
// (BuiltInPartitioner.partitionForKey, what the Java producer's default
// partitioner does for a keyed record) from the kafka-clients jar on 5,000
// keys and compares hash and partition with ours. testdata/PartitionCheck.java
// runs in Java's single-file source mode (one JVM, no separate javac). It
// needs Java and the Kafka jars (`make kafka-fetch`); without them it skips
// and says why.
func TestMurmur2AgreesWithJava(t *testing.T) {
	dist, err := cluster.FindDist()
	if err != nil {
		t.Skipf("skipping: no Kafka jars: %v", err)
	}
	java, err := cluster.JavaCommand()
	if err != nil {
		t.Skipf("skipping: %v", err)
	}
	src, _ := filepath.Abs("testdata/PartitionCheck.java")
	r := rand.New(rand.NewPCG(11, 12))
	type q struct {
		key string
		n   int32
	}
	var qs []q
	for _, key := range partitioner.Murmur2KnownKeys() {
		qs = append(qs, q{key, 12})
	}
	const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:#/é✓"
	runes := []rune(letters)
	for len(qs) < 5000 {
		var b strings.Builder
		for i := r.IntN(30) + 1; i > 0; i-- {
			b.WriteRune(runes[r.IntN(len(runes))])
		}
		qs = append(qs, q{b.String(), int32(1 + r.IntN(100))})
	}
	var in bytes.Buffer
	for _, x := range qs {
		fmt.Fprintf(&in, "%d\t%s\n", x.n, x.key)
	}
	cmd := exec.Command(java, "-cp", dist.Classpath(), src)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("java PartitionCheck: %v\n%s", err, stderr.String())
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	i := 0
	for ; sc.Scan(); i++ {
		hash, part, _ := strings.Cut(sc.Text(), "\t")
		h, _ := strconv.ParseInt(hash, 10, 32)
		p, _ := strconv.ParseInt(part, 10, 32)
		x := qs[i]
		if got := partitioner.Murmur2([]byte(x.key)); int64(got) != h {
			t.Errorf("murmur2(%q): ours %d, Java %d", x.key, got, h)
		}
		if got := partitioner.Murmur2Partitioner.Partition([]byte(x.key), x.n); int64(got) != p {
			t.Errorf("partition(%q, %d): ours %d, Java %d", x.key, x.n, got, p)
		}
	}
	if i != len(qs) {
		t.Fatalf("Java answered %d of %d keys", i, len(qs))
	}
}
