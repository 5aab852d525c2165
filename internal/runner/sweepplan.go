package runner

import (
	"fmt"
	"io"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/internal/launcher"
	"github.com/chaosbench/chaosbench/internal/loadgen"
	"github.com/chaosbench/chaosbench/internal/member"
	"github.com/chaosbench/chaosbench/internal/sweep"
	"github.com/chaosbench/chaosbench/workloads"
)

// A capacity sweep (package sweep, docs/capacity.md) runs a workload at
// every point of a grid, each point as a capacity run and a target run,
// all on one cluster. PlanSweep derives every run of every point and
// refuses, before anything starts, what the driver, a member or the
// producer would refuse; Sweep (sweep.go) runs those not yet finished.

// SweepOptions configure a capacity sweep.
type SweepOptions struct {
	// Record is the sweep's record: a new sweep's, or the one read from
	// Dir to resume it.
	Record *sweep.Record
	// Workload is the workload every point derives from; File and Data
	// are its file and what it holds (a resumed sweep's are
	// Dir/workload.yaml).
	Workload *workloads.Spec
	File     string
	Data     []byte
	// Dir is the folder of the sweep being resumed; "" for a new sweep,
	// created under ResultsDir.
	Dir        string
	ResultsDir string
	// Only runs one kind of run (sweep.KindCapacity or sweep.KindTarget);
	// "" runs both.
	Only string
	// AllTargets runs every point at the target rate, even one whose
	// capacity run sustained less: by default it is skipped, as it cannot
	// meet it.
	AllTargets bool
	// Cluster is the cluster every run of the sweep runs on, opened once:
	// every point's broker settings go under its own, and a local one has
	// at least the brokers any point's workload asks for.
	Cluster cluster.Options
	// Out receives the cluster, each run's plan and progress, and the
	// sweep's end.
	Out io.Writer
	// Command is the command line, recorded in every run's run.json and
	// in a resume's entry of sweep.json with every secret masked.
	Command []string
	// Launcher and ClockListen are every run's (Options).
	Launcher    launcher.Launcher
	ClockListen string
}

// SweepRun is one run of one point.
type SweepRun struct {
	Point sweep.Point
	Kind  string // sweep.KindCapacity or sweep.KindTarget
	Spec  *workloads.Spec
}

// SweepPlan is a sweep ready to run: its options and every run of every
// point, checked, every capacity run first (a point whose capacity is
// below the target rate need not run at it).
type SweepPlan struct {
	SweepOptions
	Runs []SweepRun
}

// PlanSweep derives every run of every point of the sweep and checks
// each: its workload (a chaos step may target a member a smaller group
// does not have), its members' client, strategy and properties, its
// producer's. An error names the point and the cell; nothing has started.
func PlanSweep(o SweepOptions) (*SweepPlan, error) {
	p := &SweepPlan{SweepOptions: o}
	props := kafkaconf.Props{}
	for k, v := range o.Cluster.Props {
		props[k] = v
	}
	for k, v := range o.Workload.Consumer.Properties {
		props[k] = v
	}
	for _, kind := range sweep.Kinds {
		for _, pt := range o.Record.Points {
			if o.Only != "" && kind != o.Only {
				continue
			}
			var s *workloads.Spec
			var err error
			if kind == sweep.KindCapacity {
				s, err = pt.CapacitySpec(o.File, o.Data, o.Record.Saturate)
			} else {
				s, err = pt.TargetSpec(o.File, o.Data, o.Record.Targets)
			}
			if err != nil {
				return nil, err
			}
			for _, c := range s.Cells() {
				if err := member.CheckClient(c.Client, c.Strategy, s.Consumer.StaticMembership, props); err != nil {
					return nil, fmt.Errorf("%s: point %s, cell %s (consumer.static_membership, consumer.properties, -X, -F): %v", o.File, pt.Label(), c.Name, err)
				}
			}
			if err := loadgen.CheckClient(s, o.Cluster.Props); err != nil {
				return nil, fmt.Errorf("%s: producer (producer.client %s, -X, -F): %v", o.File, s.Producer.Client, err)
			}
			p.Runs = append(p.Runs, SweepRun{Point: pt, Kind: kind, Spec: s})
		}
	}
	return p, nil
}
