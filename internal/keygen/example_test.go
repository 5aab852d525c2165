package keygen_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/chaosbench/chaosbench/internal/keygen"
)

// A seeded generator gives the same keys and per-key sequence numbers on
// every run: this output is the stream of seed 42, record for record.
func ExampleGenerator() {
	format, _ := keygen.ParseFormat("k%03d")
	keys := &keygen.Keyspace{Format: format, Count: 100}
	hot, _ := keygen.Hotspot(keys.Len(), 2, 0.9)
	gen := keygen.NewGenerator(hot, rand.New(rand.NewPCG(42, 0)))
	for i := 0; i < 8; i++ {
		k, seq := gen.Next()
		fmt.Println(keys.Key(k), seq)
	}
	// Output:
	// k000 0
	// k001 0
	// k001 1
	// k000 1
	// k001 2
	// k000 2
	// k001 3
	// k000 3
}

// Explicit keys come first in the keyspace; the rest of the traffic goes
// uniformly to the formatted keys.
func ExampleExplicit() {
	format, _ := keygen.ParseFormat("user-%d")
	keys := &keygen.Keyspace{Named: []string{"tenant-a", "tenant-b"}, Format: format, Count: 1000}
	d, _ := keygen.Explicit([]float64{0.3, 0.1}, 1000)
	fmt.Println(d)
	fmt.Printf("%s %.2f\n", keys.Key(0), d.Prob(0))
	fmt.Printf("%s %.4f\n", keys.Key(2), d.Prob(2))
	// Output:
	// explicit(2 named keys, 0.6 of traffic over 1000 other keys)
	// tenant-a 0.30
	// user-0 0.0006
}

func ExampleZipf() {
	d, _ := keygen.Zipf(1000, 1.1)
	top := 0.0
	for i := 0; i < 10; i++ {
		top += d.Prob(i)
	}
	fmt.Printf("%v: the top 10 keys get %.1f%% of the traffic\n", d, 100*top)
	// Output:
	// zipf(1000 keys, exponent 1.1): the top 10 keys get 48.1% of the traffic
}
