package kubetest

import (
	"context"
	"io"
	"sync"
)

// output is a container's output as a kubelet keeps it: everything since
// the start, read by any number of followers, each from the beginning.
type output struct {
	mu     sync.Mutex
	data   []byte
	grew   chan struct{} // closed and replaced at each write
	done   chan struct{} // closed when the container has ended
	closed bool
}

func newOutput() *output {
	return &output{grew: make(chan struct{}), done: make(chan struct{})}
}

func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.data = append(o.data, p...)
	close(o.grew)
	o.grew = make(chan struct{})
	return len(p), nil
}

func (o *output) close() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if !o.closed {
		o.closed = true
		close(o.done)
	}
}

// reader follows the output from its start until the container ends
// (io.EOF) or ctx does.
func (o *output) reader(ctx context.Context) io.ReadCloser {
	ctx, cancel := context.WithCancel(ctx)
	return &follower{o: o, ctx: ctx, cancel: cancel}
}

type follower struct {
	o      *output
	off    int
	ctx    context.Context
	cancel context.CancelFunc
}

func (f *follower) Read(p []byte) (int, error) {
	for {
		f.o.mu.Lock()
		if f.off < len(f.o.data) {
			n := copy(p, f.o.data[f.off:])
			f.off += n
			f.o.mu.Unlock()
			return n, nil
		}
		closed, grew := f.o.closed, f.o.grew
		f.o.mu.Unlock()
		if closed {
			return 0, io.EOF
		}
		select {
		case <-grew:
		case <-f.o.done:
		case <-f.ctx.Done():
			return 0, f.ctx.Err()
		}
	}
}

func (f *follower) Close() error {
	f.cancel()
	return nil
}
