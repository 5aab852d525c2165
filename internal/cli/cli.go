// Package cli holds what chaosbench's commands share: exit statuses, usage
// errors, the workload argument, and signal handling.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"github.com/chaosbench/chaosbench/internal/clip"
	"github.com/chaosbench/chaosbench/internal/kafkaconf"
	"github.com/chaosbench/chaosbench/workloads"
)

// Exit statuses, the same for every command.
const (
	ExitOK      = 0
	ExitFailure = 1 // a run failed, a check found anomalies, a regression
	ExitUsage   = 2 // bad flags, bad input files: nothing was started
)

// UsageError is bad input: a flag, an argument or an input file. Commands
// exit with status 2 on it.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef returns a *UsageError.
func Usagef(format string, args ...any) error {
	return &UsageError{Err: fmt.Errorf(format, args...)}
}

// Usage wraps err as a *UsageError (nil stays nil).
func Usage(err error) error {
	if err == nil {
		return nil
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		return err
	}
	return &UsageError{Err: err}
}

// Exit prints err (if any) prefixed by the command name and exits with the
// matching status. Help asked for (-h, --help: flag.ErrHelp) is no error:
// the usage was printed, the status is 0.
func Exit(name string, err error) {
	if err == nil || errors.Is(err, flag.ErrHelp) {
		os.Exit(ExitOK)
	}
	// An error may quote its input whole (a library's, the flag
	// package's "invalid value ..."): what is printed is cut short.
	fmt.Fprintf(os.Stderr, "%s: %s\n", name, clip.Message(err.Error()))
	var ue *UsageError
	if errors.As(err, &ue) {
		os.Exit(ExitUsage)
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		os.Exit(ee.Status)
	}
	os.Exit(ExitFailure)
}

// ExitError carries a specific exit status.
type ExitError struct {
	Status int
	Err    error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// NewFlagSet returns a flag set that reports errors instead of exiting, and
// prints usage to w.
func NewFlagSet(name string, w io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(w)
	return fs
}

// Parse parses args into fs. Flags may come before, between or after the
// positional arguments (chaos run workloads/default.yaml --strategies
// sticky), as Kafka's tools and most command lines take them; "--" ends
// the flags, and "-" alone is an argument (standard input).
//
// -h or --help prints the usage to standard output and returns
// flag.ErrHelp (Exit makes it status 0). A flag error prints the usage to
// fs's output and returns a *UsageError, which Exit prints once, last.
func Parse(fs *flag.FlagSet, args []string) error {
	flags, positional, complete := interleave(fs, args)
	if complete {
		flags = append(append(flags, "--"), positional...)
	}
	out := fs.Output()
	fs.SetOutput(io.Discard) // the flag package would print the error, then the usage
	err := fs.Parse(flags)
	fs.SetOutput(out)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, flag.ErrHelp):
		if out == os.Stderr {
			fs.SetOutput(os.Stdout) // help asked for is output, not an error
		}
		fs.Usage()
		fs.SetOutput(out)
		return err
	}
	fs.Usage()
	return Usage(err)
}

// Given reports whether the flag name was on the command line: a flag
// given its zero value (--duration 0) is given, and checked, not taken
// for the default.
func Given(fs *flag.FlagSet, name string) bool {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == name })
	return given
}

// interleave moves the flags of args (with their values) before the
// positional arguments. complete is false when the last flag lacks its
// value: then only the flags are worth parsing, for the error.
func interleave(fs *flag.FlagSet, args []string) (flags, positional []string, complete bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return flags, append(positional, args[i+1:]...), true
		}
		if len(a) < 2 || a[0] != '-' {
			positional = append(positional, a)
			continue
		}
		flags = append(flags, a)
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		f := fs.Lookup(name)
		if f == nil {
			continue // an unknown flag: Parse names it
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if i+1 == len(args) {
			return flags, positional, false
		}
		i++
		flags = append(flags, args[i])
	}
	return flags, positional, true
}

// ParseWorkload parses a command's flags and its one argument, a workload
// file, and loads it; every error is bad input (exit status 2).
func ParseWorkload(fs *flag.FlagSet, args []string) (*workloads.Spec, error) {
	if err := Parse(fs, args); err != nil {
		return nil, err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return nil, Usagef("expected one workload file, got %d arguments", fs.NArg())
	}
	return LoadWorkload(fs.Arg(0))
}

// LoadWorkload loads a workload file (workloads.Load) and refuses a
// secret in it (kafkaconf.IsSecret: a password, a key, a JAAS
// configuration in consumer.properties or broker.config): the file is
// copied into every results folder it runs, and often committed. Secrets
// come from -F FILE or -X instead. Every error is bad input.
func LoadWorkload(path string) (*workloads.Spec, error) {
	s, err := workloads.Load(path)
	if err != nil {
		return nil, Usage(err)
	}
	for _, sec := range []struct {
		field string
		props map[string]string
	}{{"consumer.properties", s.Consumer.Properties}, {"broker.config", s.Broker.Config}} {
		keys := make([]string, 0, len(sec.props))
		for k := range sec.props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if kafkaconf.IsSecret(k) {
				return nil, Usagef("%s: %s.%s: a secret in a workload file would be copied into every results folder: give it with -F FILE (a .properties file) or -X instead", path, sec.field, k)
			}
		}
	}
	return s, nil
}

// SignalContext returns a context cancelled on SIGINT or SIGTERM. A second
// signal is not caught: it ends the process the default way.
func SignalContext(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case s := <-ch:
			signal.Stop(ch)
			name := "SIGINT"
			if s == syscall.SIGTERM {
				name = "SIGTERM"
			}
			cancel(fmt.Errorf("interrupted by %s", name))
		case <-ctx.Done():
			signal.Stop(ch)
		}
	}()
	return ctx, func() { cancel(context.Canceled) }
}

// StringList is a flag.Value collecting repeated string flags.
type StringList []string

func (s *StringList) String() string { return fmt.Sprint([]string(*s)) }

// Set implements flag.Value.
func (s *StringList) Set(v string) error { *s = append(*s, v); return nil }

// Command is one subcommand of a program: what it does, in a line, and
// how it runs on the arguments after its name.
type Command struct {
	Summary string
	Run     func(args []string) error
}

// Dispatch runs the subcommand that args[1] names and exits with its
// status (Exit). help (-h) prints usage to standard output and version
// (--version) calls version; a missing or unknown name is a usage error:
// usage on standard error, exit status 2.
func Dispatch(prog string, args []string, commands map[string]Command, usage func(io.Writer), version func()) {
	if len(args) < 2 {
		usage(os.Stderr)
		os.Exit(ExitUsage)
	}
	name := args[1]
	switch name {
	case "help", "-h", "-help", "--help":
		usage(os.Stdout)
		return
	case "version", "-version", "--version":
		version()
		return
	}
	c, ok := commands[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "%s: unknown command %s\n\n", prog, clip.Quote(name))
		usage(os.Stderr)
		os.Exit(ExitUsage)
	}
	Exit(prog+" "+name, c.Run(args[2:]))
}

// IntRange is an integer flag's bounds, for CheckRanges.
type IntRange struct {
	Flag     string
	Value    int
	Min, Max int
}

// CheckRanges returns a usage error naming every flag whose value is
// outside its bounds, or nil.
func CheckRanges(rs ...IntRange) error {
	var errs []error
	for _, r := range rs {
		if r.Value < r.Min || r.Value > r.Max {
			errs = append(errs, fmt.Errorf("--%s %d: expected %d to %d", r.Flag, r.Value, r.Min, r.Max))
		}
	}
	if len(errs) == 0 {
		return nil
	}
	return Usage(errors.Join(errs...))
}
