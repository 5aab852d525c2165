package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/chaosbench/chaosbench/assign"
	"github.com/chaosbench/chaosbench/internal/cli"
)

const assignUsage = `usage: chaos assign --strategy NAME --input FILE
       chaos assign --strategy NAME|all --churn SCRIPT [--input FILE] [--json]

Computes partition assignments with exact models of Kafka's assignors,
without a cluster.

With --input alone: the assignment of one rebalance of the group in FILE
(JSON; - reads standard input), printed as JSON with its movement and skew:

  {"topics": {"t0": 3},
   "members": [{"id": "c0", "topics": ["t0"], "owned": {"t0": [0]}},
               {"id": "c1", "topics": ["t0"], "instance_id": "host-1"}]}

"owned" (the previous assignment) and "instance_id" (group.instance.id)
are optional.

With --churn: a what-if simulation. SCRIPT (- reads standard input) lists
the group's changes, one rebalance per line:

  topic t0 12
  join c0..c5 t0
  leave c3
  topic t0 24
  join c6 t0; leave c0

and each step's cost is printed: partitions moved (and the fewest a
balanced assignment needed), revoked, rebalance rounds, partitions per
member. --input gives the starting group.

Strategies: %s.

Flags:
`

func init() {
	register("assign", "compute assignments and what-if churn with models of Kafka's assignors", runAssign)
}

func runAssign(args []string) error {
	fs := cli.NewFlagSet("chaos assign", os.Stderr)
	strategy := fs.String("strategy", "", "the strategy: "+strings.Join(assign.Names(), ", ")+" (with --churn also: all)")
	input := fs.String("input", "", "the group, a JSON file (- for standard input)")
	churn := fs.String("churn", "", "a churn script (- for standard input): simulate its steps")
	asJSON := fs.Bool("json", false, "with --churn: print one JSON object per step instead of a table")
	full := fs.Bool("assignments", false, "with --churn --json: include each step's assignment")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), assignUsage, strings.Join(assign.Names(), ", "))
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cli.Usagef("assign: unexpected argument %q", fs.Arg(0))
	}
	if *strategy == "" {
		return cli.Usagef("assign: --strategy is required (%s)", strings.Join(assign.Names(), ", "))
	}
	if *input == "" && *churn == "" {
		return cli.Usagef("assign: --input or --churn is required")
	}
	if *input == "-" && *churn == "-" {
		return cli.Usagef("assign: --input and --churn cannot both read standard input")
	}
	strategies, err := lookupStrategies(*strategy, *churn != "")
	if err != nil {
		return err
	}
	var group *assign.Group
	if *input != "" {
		g, err := readGroup(*input)
		if err != nil {
			return cli.Usage(err)
		}
		group = g
	}
	if *churn == "" {
		return printAssignment(os.Stdout, strategies[0], group)
	}
	script, name, err := readScript(*churn)
	if err != nil {
		return cli.Usage(err)
	}
	return printChurn(os.Stdout, strategies, group, script, name, *asJSON, *full)
}

// lookupStrategies returns the assignor of --strategy: one, or with a
// churn script and "all", every one.
func lookupStrategies(strategy string, churn bool) ([]assign.Assignor, error) {
	var strategies []assign.Assignor
	if strategy == "all" && churn {
		for _, n := range assign.Names() {
			a, _ := assign.Lookup(n)
			strategies = append(strategies, a)
		}
		return strategies, nil
	}
	a, err := assign.Lookup(strategy)
	if err != nil {
		return nil, cli.Usagef("assign: --strategy: %v", err)
	}
	return append(strategies, a), nil
}

// readScript reads the churn script at path (- for standard input) and
// returns it with the name its errors and steps go by.
func readScript(path string) (*assign.Script, string, error) {
	name := path
	var r io.Reader = os.Stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, name, err
		}
		defer f.Close()
		r = f
	} else {
		name = "<stdin>"
	}
	script, err := assign.ParseScript(&limited{r: io.LimitReader(r, maxAssignInput+1), name: name}, name)
	return script, name, err
}

// maxAssignInput bounds chaos assign's input and churn script: a group
// within assign's bounds, with its owned partitions, is far smaller.
const maxAssignInput = 256 << 20

// limited reads from a LimitReader set one byte past maxAssignInput and
// fails on that byte instead of reading on.
type limited struct {
	r    io.Reader
	n    int64
	name string
}

func (l *limited) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if l.n += int64(n); l.n > maxAssignInput {
		return 0, fmt.Errorf("%s: more than %d bytes", l.name, maxAssignInput)
	}
	return n, err
}

// printChurn simulates the script under every strategy and prints each
// step's cost, as a table or (asJSON) one JSON object per step, with each
// step's assignment when full.
func printChurn(out io.Writer, strategies []assign.Assignor, group *assign.Group, script *assign.Script, name string, asJSON, full bool) error {
	// Simulate everything before printing anything: a bad step prints no
	// half of a report.
	results := make([][]assign.StepResult, len(strategies))
	for i, a := range strategies {
		res, err := assign.Simulate(a, group, script, name, full)
		if err != nil {
			return cli.Usage(err)
		}
		results[i] = res
	}
	w := bufio.NewWriter(out)
	for i, a := range strategies {
		var err error
		if asJSON {
			err = printChurnJSON(w, a, results[i])
		} else {
			err = printChurnTable(w, a, results[i], i > 0)
		}
		if err != nil {
			return err
		}
	}
	return w.Flush()
}

// readGroup reads and validates a group; errors name the file and field.
func readGroup(path string) (*assign.Group, error) {
	var data []byte
	var err error
	var r io.Reader = os.Stdin
	if path == "-" {
		path = "<stdin>"
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	data, err = io.ReadAll(&limited{r: io.LimitReader(r, maxAssignInput+1), name: path})
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var g assign.Group
	if err := dec.Decode(&g); err != nil {
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			line := 1 + bytes.Count(data[:se.Offset], []byte("\n"))
			return nil, fmt.Errorf("%s:%d: %v", path, line, se)
		case errors.As(err, &te):
			line := 1 + bytes.Count(data[:te.Offset], []byte("\n"))
			return nil, fmt.Errorf("%s:%d: %s: got a JSON %s, expected %s", path, line, te.Field, te.Value, jsonKind(te.Type.String()))
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if dec.More() {
		return nil, fmt.Errorf("%s: more than one JSON value; expected one group object", path)
	}
	if g.Topics == nil {
		return nil, fmt.Errorf("%s: topics: missing; expected an object of topic to partition count", path)
	}
	if err := g.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &g, nil
}

func jsonKind(goType string) string {
	switch {
	case strings.HasPrefix(goType, "map"):
		return "an object"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.HasPrefix(goType, "int"):
		return "an integer"
	case goType == "string":
		return "a string"
	}
	return goType
}

type assignOutput struct {
	Strategy   string            `json:"strategy"`
	Protocol   string            `json:"protocol"`
	Assignment assign.Assignment `json:"assignment"`
	// Target is, for cooperative-sticky, the assignment after the
	// follow-up rebalance that assigns the withheld partitions.
	Target *assign.Assignment `json:"target,omitempty"`
	Rounds int                `json:"rounds"`
	assign.Movement
	Skew assign.Skew `json:"skew"`
}

func printAssignment(w io.Writer, a assign.Assignor, g *assign.Group) error {
	rounds := assign.Converge(a, g)
	final := rounds[len(rounds)-1]
	out := assignOutput{
		Strategy:   a.Name(),
		Protocol:   a.Protocol().String(),
		Assignment: rounds[0],
		Rounds:     len(rounds),
		Movement:   assign.Measure(g, final),
		Skew:       assign.SkewOf(g, final),
	}
	if len(rounds) > 1 {
		out.Target = &final
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func printChurnJSON(w io.Writer, a assign.Assignor, steps []assign.StepResult) error {
	enc := json.NewEncoder(w)
	for _, s := range steps {
		if err := enc.Encode(struct {
			Strategy string `json:"strategy"`
			assign.StepResult
		}{a.Name(), s}); err != nil {
			return err
		}
	}
	return nil
}

func printChurnTable(w io.Writer, a assign.Assignor, steps []assign.StepResult, blank bool) error {
	if blank {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%s (%s)\n", a.Name(), a.Protocol())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "step\tchange\tmembers\tpartitions\tper member\tmoved\tmin moves\trevoked\trounds")
	for _, s := range steps {
		minMoves := fmt.Sprint(s.MinMoves)
		if !s.MinMovesExact {
			minMoves = ">=" + minMoves
		}
		per := fmt.Sprintf("%d-%d", s.Skew.Min, s.Skew.Max)
		if s.Members == 0 {
			per, minMoves = "-", "-"
		}
		fmt.Fprintf(tw, "%d\t%s\t%d\t%d\t%s\t%d\t%s\t%d\t%d\n", s.Step, s.Change, s.Members, s.Partitions, per, s.Moves, minMoves, s.Revoked, s.Rounds)
	}
	return tw.Flush()
}
