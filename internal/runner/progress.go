package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"time"
)

// progressEvery is how often the progress line is printed when Out is not
// a terminal.
const progressEvery = 10 * time.Second

// progress prints the progress line: redrawn every second on a terminal,
// a line of its own every progressEvery elsewhere.
// lag, when not nil, is the group's lag just sampled by the caller.
func (c *cellRun) progress(ctx context.Context, t0 time.Time, phase string, lag *int64) {
	elapsed := time.Since(t0).Round(time.Second)
	if !c.opts.live {
		if !c.lastProgress.IsZero() && time.Since(c.lastProgress) < progressEvery-progressEvery/20 {
			return
		}
		c.lastProgress = time.Now()
	}
	lagStr := "?"
	if lag != nil {
		lagStr = strconv.FormatInt(*lag, 10)
	} else if n, err := c.lag(ctx); err == nil {
		lagStr = strconv.FormatInt(n, 10)
	}
	st := c.prod.Stats()
	c.mu.Lock()
	next := c.nextStep
	c.mu.Unlock()
	alive := len(c.fleet.alive())
	end := ""
	if !c.opts.live {
		end = "\n"
	}
	fmt.Fprintf(c.opts.Out, "%s%s  %s %5s  %7.0f rec/s  acked %d  err %d  p99 %s  lag %s  members %d/%d  %s%s",
		c.clearLine(), c.cell.Name, phase, elapsed, st.Rate, st.Acked, st.Errors, st.P99.Round(time.Millisecond),
		lagStr, alive, len(c.fleet.names()), next, end)
}

// logf prints a line of the cell's log, "[cell] message", on a line of
// its own: over the live progress line, which the next second redraws.
func (c *cellRun) logf(format string, args ...any) {
	fmt.Fprintf(c.opts.Out, "%s[%s] %s\n", c.clearLine(), c.cell.Name, fmt.Sprintf(format, args...))
}

// clearLine returns what erases the live progress line on a terminal.
func (c *cellRun) clearLine() string { return c.opts.clearLine() }

// clearLine returns what erases the live progress line on a terminal.
func (o *Options) clearLine() string {
	if o.live {
		return "\r\033[K"
	}
	return ""
}

// isTerminal reports whether w is a character device, such as a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// lockedWriter makes Out safe for concurrent use: the progress line, the
// chaos steps and the members' exits write from several goroutines, and
// each of their writes is a whole line (or the whole progress line) that
// must not interleave with another.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

// Write writes p to the underlying writer, one caller at a time.
func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
