package workloads

import (
	"fmt"
	"sort"
	"strings"

	"github.com/chaosbench/chaosbench/internal/clip"
)

// FieldError is one problem with a workload file: where (file, line), which
// field (a path such as "chaos.steps[2].target"), and what was expected.
type FieldError struct {
	File  string
	Line  int
	Field string
	Msg   string
}

func (e *FieldError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	b.WriteString(": ")
	if e.Field != "" {
		b.WriteString(e.Field)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Error is every problem found in a workload file, in line order. Nothing
// may be started from a workload that has one.
type Error struct {
	Errs []*FieldError
}

func (e *Error) Error() string {
	var b strings.Builder
	for i, fe := range e.Errs {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(fe.Error())
	}
	return b.String()
}

// Unwrap returns the individual errors (errors.As finds a *FieldError).
func (e *Error) Unwrap() []error {
	out := make([]error, len(e.Errs))
	for i, fe := range e.Errs {
		out[i] = fe
	}
	return out
}

// problems collects errors while reading and validating a file.
type problems struct {
	file string
	errs []*FieldError
	seen map[string]bool
}

func (p *problems) add(line int, field, format string, args ...any) {
	// Values are quoted cut short where they are quoted; Message is the
	// last line of defence for any that is not.
	fe := &FieldError{File: p.file, Line: line, Field: field, Msg: clip.Message(fmt.Sprintf(format, args...))}
	key := fe.Error()
	if p.seen == nil {
		p.seen = map[string]bool{}
	}
	if p.seen[key] {
		return
	}
	p.seen[key] = true
	p.errs = append(p.errs, fe)
}

func (p *problems) err() error {
	if len(p.errs) == 0 {
		return nil
	}
	errs := append([]*FieldError(nil), p.errs...)
	sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
	if n := len(errs) - maxErrors; n > 0 {
		errs = append(errs[:maxErrors], &FieldError{File: p.file, Msg: fmt.Sprintf("and %d more problems after these", n)})
	}
	return &Error{Errs: errs}
}
