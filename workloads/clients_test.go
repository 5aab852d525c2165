package workloads

import (
	"slices"
	"testing"
)

// A strategy runs on each listed client that implements it: sticky skips
// confluent, every other strategy runs on all three.
func TestCellsSkipAClientWithoutTheStrategy(t *testing.T) {
	s := parse(t, "duration: 1m\nstrategies: [range, sticky]\nclients: [confluent, franz, java]\n")
	var got []string
	for _, c := range s.Cells() {
		got = append(got, c.Name)
	}
	want := []string{"range.sync-batch.confluent", "range.sync-batch.franz", "range.sync-batch.java",
		"sticky.sync-batch.franz", "sticky.sync-batch.java"}
	if !slices.Equal(got, want) {
		t.Errorf("cells %v, want %v", got, want)
	}
}

// java is a consumer client, not a producer.
func TestJavaIsNoProducer(t *testing.T) {
	_, err := Parse("w.yaml", []byte("duration: 1m\nproducer: {client: java}\n"))
	if err == nil {
		t.Fatal("producer.client java: accepted")
	}
}
