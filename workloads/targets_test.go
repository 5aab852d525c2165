package workloads

import (
	"strings"
	"testing"
	"time"
)

func TestTargets(t *testing.T) {
	s := parse(t, `duration: 1m
producer: {rate: 500, steps: [{at: 30s, rate: 800}]}
targets:
  max_lag: 2000
  max_pause: 10s
  max_catch_up: 1m
  production: {members: 600, partitions: 3600}
`)
	want := Targets{Rate: 800, MaxLag: 2000, MaxPause: 10 * time.Second, MaxCatchUp: time.Minute,
		Production: &Production{Members: 600, Partitions: 3600}}
	if got := s.Targets; got.Rate != want.Rate || got.MaxLag != want.MaxLag || got.MaxPause != want.MaxPause ||
		got.MaxCatchUp != want.MaxCatchUp || *got.Production != *want.Production {
		t.Errorf("targets: got %+v, want %+v (the rate defaults to the producer's peak)", got, want)
	}
	if s := parse(t, "duration: 1m\nproducer: {rate: unlimited}\n"); s.Targets.Rate != 0 {
		t.Errorf("an unlimited producer gives no target rate, got %v", s.Targets.Rate)
	}
	if s := parse(t, "duration: 1m\ntargets: {rate: 1200}\n"); s.Targets.Rate != 1200 {
		t.Errorf("targets.rate: got %v, want 1200", s.Targets.Rate)
	}
	for name, c := range map[string]struct{ src, want string }{
		"zero rate":          {"duration: 1m\ntargets:\n  rate: 0\n", "w.yaml:3: targets.rate: got 0, expected a rate in records/s > 0"},
		"unlimited rate":     {"duration: 1m\ntargets:\n  rate: unlimited\n", `w.yaml:3: targets.rate: got "unlimited", expected a rate in records/s (a number > 0)`},
		"zero lag":           {"duration: 1m\ntargets:\n  max_lag: 0\n", "w.yaml:3: targets.max_lag: got 0, expected a number of records from 1 to 10000000000"},
		"huge rate":          {"duration: 1m\ntargets:\n  rate: 1e12\n", "w.yaml:3: targets.rate: got 1e+12, expected a rate in records/s > 0 and at most 10000000"},
		"huge lag":           {"duration: 1m\ntargets:\n  max_lag: 99999999999999\n", "w.yaml:3: targets.max_lag: got 99999999999999, expected a number of records from 1 to 10000000000"},
		"year-long pause":    {"duration: 1m\ntargets:\n  max_pause: 8760h\n", "w.yaml:3: targets.max_pause: got 8760h0m0s, expected a duration > 0 and at most 24h0m0s"},
		"bare pause":         {"duration: 1m\ntargets:\n  max_pause: 10\n", "w.yaml:3: targets.max_pause: got number 10, expected a duration with a unit"},
		"negative catch-up":  {"duration: 1m\ntargets:\n  max_catch_up: -1s\n", "w.yaml:3: targets.max_catch_up: got -1s, expected a duration > 0"},
		"production half":    {"duration: 1m\ntargets:\n  production: {members: 10}\n", "w.yaml:3: targets.production: expected both members and partitions"},
		"production too big": {"duration: 1m\ntargets:\n  production:\n    members: 20000\n    partitions: 10\n", "w.yaml:4: targets.production.members: got 20000, expected a number of members from 1 to 10000"},
		"unknown field":      {"duration: 1m\ntargets:\n  max_lagg: 10\n", "w.yaml:3: targets.max_lagg: unknown field, did you mean max_lag?"},
	} {
		_, err := Parse("w.yaml", []byte(c.src))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error containing %q", name, err, c.want)
		}
	}
}
