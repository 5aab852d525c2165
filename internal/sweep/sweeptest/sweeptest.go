// Package sweeptest builds the capacity table that the tests of the
// sweep's judgement and of the capacity report share, so that both hold
// the same sweep: one whose every figure is known.
package sweeptest

import (
	"math"
	"strconv"
	"testing"

	"github.com/chaosbench/chaosbench/internal/runfolder"
	"github.com/chaosbench/chaosbench/internal/summary"
	"github.com/chaosbench/chaosbench/internal/sweep"
	"github.com/chaosbench/chaosbench/workloads"
)

// Table is a sweep of 1, 2, 3, 4 and 6 members over 4 partitions and of
// 2, 4 and 6 over 8, at 10 ms a record (100 records/s a member), two
// iterations a run. Over 4 partitions of uniform keys the group scales to
// 4 members and stops there (the partition count); over 8, the hottest
// partition carries a fixed 40% (hot keys), which caps every group at
// 250. Every point's
// target run delivered 150 records/s with a steady lag of 40, one kill
// that paused partitions for 7 s and recovered in 9 s and 10 s, and a
// rolling restart of every member whose longest pause was 900 ms.
func Table(t testing.TB) (*sweep.Table, *workloads.Spec) {
	t.Helper()
	spec, err := workloads.Parse("w.yaml", []byte(`duration: 30s
topic: {partitions: 4}
consumer: {members: 2, processing: {cost: 10ms}}
strategies: [cooperative-sticky]
producer: {rate: 150}
chaos: {warmup: 5s, steps: [{at: 10s, action: kill, target: random}, {at: 20s, action: rolling_restart, interval: 1s}]}
`))
	if err != nil {
		t.Fatal(err)
	}
	tab := &sweep.Table{SchemaVersion: sweep.SchemaVersion, ProcessingCostMs: 10, Processing: "fixed 10ms",
		Sweep: &sweep.Record{Workload: "w", Repeat: 2, Lifecycle: runfolder.Lifecycle{Complete: true},
			Grid: []sweep.Dim{{Name: "members", Values: []string{"1", "2", "3", "4", "6"}}, {Name: "partitions", Values: []string{"4", "8"}}}}}
	row := func(m, p int, thr [2]float64, hot, busiest float64, pauseMs float64) {
		name := "m" + strconv.Itoa(m) + "_p" + strconv.Itoa(p)
		r := sweep.Row{Point: sweep.Point{Name: name, Settings: []sweep.Setting{{Dim: "members", Value: strconv.Itoa(m)}, {Dim: "partitions", Value: strconv.Itoa(p)}}},
			Members: m, Partitions: p, Strategy: "cooperative-sticky", CommitPolicy: "sync-batch", Client: "confluent", MaxPollRecords: 500,
			ModelCapacity: math.Min(float64(min(m, p))*100, 100/hot), CapacityRun: name + "/capacity", TargetRun: name + "/target"}
		for i, v := range thr {
			r.Capacity = append(r.Capacity, sweep.CapacityCell{Cell: name + "/capacity/x", Iteration: i, Capacity: sweep.Capacity{
				Throughput: v, MemberRate: 98, HottestShare: hot, MaxMemberShare: busiest,
				Members: []sweep.MemberRate{{Member: "m1", Rate: 97 + float64(i)}}}})
			rec := 9000.0 + 1000*float64(i)
			r.Target = append(r.Target, sweep.TargetCell{Cell: name + "/target/x", Iteration: i, AtTarget: sweep.AtTarget{
				Rate: 150, Delivered: 150, LagSteady: 40, LagPeak: 1200, Verdict: summary.Valid, Complete: true, DrainComplete: true,
				Crash:  sweep.Disruptions{Count: 1, PauseMaxMs: pauseMs, RecoveryMs: &rec, PauseOfRecovery: pauseMs},
				Deploy: sweep.Disruptions{Count: m, PauseMaxMs: 900}}})
		}
		tab.Rows = append(tab.Rows, r)
	}
	row(1, 4, [2]float64{99, 97}, 0.25, 1, 7000)
	row(2, 4, [2]float64{196, 190}, 0.25, 0.5, 7000)
	row(3, 4, [2]float64{197, 201}, 0.25, 0.5, 7000) // 4 partitions over 3: the busiest member has two
	row(4, 4, [2]float64{395, 380}, 0.25, 0.25, 7000)
	row(6, 4, [2]float64{392, 399}, 0.25, 0.25, 7000)
	row(2, 8, [2]float64{198, 196}, 0.4, 0.55, 7000)
	row(4, 8, [2]float64{245, 250}, 0.4, 0.4, 7000)
	row(6, 8, [2]float64{248, 251}, 0.4, 0.4, 7000)
	return tab, spec
}
