package vocab_test

import (
	"slices"
	"testing"

	"github.com/chaosbench/chaosbench/assign"
	"github.com/chaosbench/chaosbench/internal/vocab"
)

func TestEveryStrategyRunsSomewhere(t *testing.T) {
	for _, s := range vocab.Strategies() {
		c := vocab.DefaultClient(s.Name)
		if c == "" {
			t.Errorf("%s: no client implements it", s.Name)
			continue
		}
		if ok, why := vocab.Supports(c, s.Name); !ok {
			t.Errorf("%s: default client %s does not support it: %s", s.Name, c, why)
		}
	}
	if got := vocab.DefaultClient(vocab.Sticky); got != vocab.ClientFranz {
		t.Errorf("sticky runs on %q by default, want franz (librdkafka has no eager sticky)", got)
	}
	if got := vocab.DefaultClient(vocab.Range); got != vocab.ClientConfluent {
		t.Errorf("range runs on %q by default, want confluent", got)
	}
	if ok, why := vocab.Supports(vocab.ClientConfluent, vocab.Sticky); ok || why == "" {
		t.Errorf("sticky on confluent: ok %v, why %q: want a refusal with its reason", ok, why)
	}
	if ok, _ := vocab.Supports("sarama", vocab.Range); ok {
		t.Error("an unknown client supports range")
	}
}

// The assignment models (package assign) are the oracle of every
// strategy: each strategy of the vocabulary has one, under the same name,
// in the same order, with the same rebalance style.
func TestEveryStrategyHasAModel(t *testing.T) {
	if got, want := assign.Names(), vocab.StrategyNames(); !slices.Equal(got, want) {
		t.Fatalf("assign models %v, vocabulary %v", got, want)
	}
	for _, s := range vocab.Strategies() {
		a, err := assign.Lookup(s.Name)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case s.Protocol == vocab.Consumer && a.Protocol() != assign.Consumer,
			s.Protocol == vocab.Classic && s.Style == vocab.Eager && a.Protocol() != assign.Eager,
			s.Protocol == vocab.Classic && s.Style == vocab.Incremental && a.Protocol() != assign.Cooperative:
			t.Errorf("%s: vocabulary says %s/%s, its model %v", s.Name, s.Protocol, s.Style, a.Protocol())
		}
	}
}

func TestNamesAreUniqueAndRanked(t *testing.T) {
	for _, list := range [][]string{vocab.StrategyNames(), vocab.PolicyNames(), vocab.ClientNames()} {
		seen := map[string]bool{}
		for _, n := range list {
			if seen[n] || n == "" {
				t.Errorf("name %q empty or repeated in %v", n, list)
			}
			seen[n] = true
		}
	}
	for i, n := range vocab.StrategyNames() {
		if vocab.StrategyRank(n) != i {
			t.Errorf("%s ranks %d, want %d", n, vocab.StrategyRank(n), i)
		}
	}
	if vocab.StrategyRank("fair") != len(vocab.StrategyNames()) {
		t.Error("an unknown strategy does not rank last")
	}
	for _, p := range vocab.Policies() {
		switch p.Guarantee {
		case vocab.AtLeastOnce, vocab.AtMostOnce, vocab.ExactlyOnce, vocab.NoGuarantee:
		default:
			t.Errorf("%s: guarantee %q", p.Name, p.Guarantee)
		}
	}
	if vocab.GuaranteeOf("sometimes") != vocab.UnknownGuarantee {
		t.Error("an unknown policy has a guarantee")
	}
}

func TestSupportsPolicy(t *testing.T) {
	for _, p := range vocab.PolicyNames() {
		for _, c := range vocab.ClientNames() {
			if ok, why := vocab.SupportsPolicy(c, p); !ok {
				t.Errorf("%s on %s refused: %s", p, c, why)
			}
		}
	}
	if ok, why := vocab.SupportsPolicy("kcat", vocab.PolicySyncBatch); ok || why != "" {
		t.Error("an unknown client supports a policy")
	}
	if vocab.GuaranteeOf(vocab.PolicyTransactional) != vocab.ExactlyOnce || !vocab.IsTransactional(vocab.PolicyTransactional) {
		t.Error("transactional is not exactly-once")
	}
}
