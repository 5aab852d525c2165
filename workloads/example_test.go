package workloads_test

import (
	"fmt"

	"github.com/chaosbench/chaosbench/workloads"
)

func ExampleParse() {
	spec, err := workloads.Parse("mine.yaml", []byte(`
duration: 2m
strategies: [cooperative-sticky, sticky]
commit_policies: [sync-batch, auto]
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(spec.Name, spec.Duration, spec.Topic.Partitions, spec.Producer.Partitioner)
	for _, c := range spec.Cells() {
		fmt.Println(c.Name)
	}
	// Output:
	// mine 2m0s 12 murmur2
	// cooperative-sticky.sync-batch.confluent
	// cooperative-sticky.auto.confluent
	// sticky.sync-batch.franz
	// sticky.auto.franz
}

// Errors name the file, the line, the field and what was expected.
func ExampleParse_errors() {
	_, err := workloads.Parse("mine.yaml", []byte(`duration: 2m
producer:
  acks: 2
chaos:
  steps:
    - {at: 30s, action: kill, target: m1}
    - {after: 10s, action: restart, target: m9}
`))
	fmt.Println(err)
	// Output:
	// mine.yaml:3: producer.acks: got "2", expected all, 1 or 0
	// mine.yaml:7: chaos.steps[1].target: no member m9 at this point: the group has m1, m2, m3 (add steps create more)
}

// The chaos plan resolves times, random targets (from the seed) and the
// names of added members before anything runs.
func ExampleSpec_ChaosPlan() {
	spec, _ := workloads.Parse("mine.yaml", []byte(`duration: 2m
seed: 3
chaos:
  warmup: 10s
  steps:
    - {at: 30s, action: kill, target: random}
    - {after: 10s, action: add, count: 2}
    - {after: 10s, action: add_partitions, partitions: 24}
`))
	for _, st := range spec.ChaosPlan() {
		fmt.Println(st.Step, st.At, st.Action, st.Target, st.Members, st.Partitions)
	}
	// Output:
	// 1 30s kill m1 [] 0
	// 2 40s add  [m4 m5] 0
	// 3 50s add_partitions mine [] 24
}
