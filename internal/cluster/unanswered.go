package cluster

import (
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// unanswered watches a client's connections (franz-go hooks) for the
// requests a broker took and never answered. A broker that accepts a
// connection and then says nothing (a wrong port, a proxy, a process
// stopped with SIGSTOP) otherwise shows only as the deadline passing:
// "context deadline exceeded" names neither the address nor what was
// awaited.
type unanswered struct {
	mu      sync.Mutex
	pending map[string]int16 // address -> key of the request written last, not answered
}

func newUnanswered() *unanswered { return &unanswered{pending: map[string]int16{}} }

func brokerAddr(m kgo.BrokerMetadata) string {
	return net.JoinHostPort(m.Host, strconv.Itoa(int(m.Port)))
}

// OnBrokerWrite implements kgo.HookBrokerWrite.
func (u *unanswered) OnBrokerWrite(m kgo.BrokerMetadata, key int16, _ int, _, _ time.Duration, err error) {
	if err != nil {
		return
	}
	u.mu.Lock()
	u.pending[brokerAddr(m)] = key
	u.mu.Unlock()
}

// OnBrokerRead implements kgo.HookBrokerRead.
func (u *unanswered) OnBrokerRead(m kgo.BrokerMetadata, _ int16, _ int, _, _ time.Duration, err error) {
	if err != nil {
		return
	}
	u.mu.Lock()
	delete(u.pending, brokerAddr(m))
	u.mu.Unlock()
}

// explain says, per address, what was awaited in vain within d: "" if no
// request went unanswered.
func (u *unanswered) explain(d time.Duration) string {
	u.mu.Lock()
	defer u.mu.Unlock()
	var out []string
	for addr, key := range u.pending {
		out = append(out, fmt.Sprintf("%s: no answer to %s within %v", addr, kmsg.NameForKey(key), d))
	}
	slices.Sort(out)
	return strings.Join(out, "; ")
}
