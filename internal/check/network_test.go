package check

import "testing"

// The blip shorter than the session timeout: followed, and found neither
// evicted nor learning anything (fields a partial want.json cannot deny).
func TestNetworkBlipNotEvicted(t *testing.T) {
	a, err := AnalyzeCell("testdata/net-blip", Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := a.Summary.Network.Steps
	if len(st) != 1 {
		t.Fatalf("network steps %+v, want the one disconnect", st)
	}
	if s := st[0]; s.EvictedT != 0 || s.LearnedT != 0 || s.LearnedAfterHealMs != nil || a.Summary.Network.LearnedMaxMs != nil {
		t.Errorf("a 1 s blip followed as %+v, learned max %v: want never evicted, nothing learned", s, a.Summary.Network.LearnedMaxMs)
	}
}
