package cluster

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/chaosbench/chaosbench/internal/procutil"
)

func (l *Local) format(ctx context.Context, n *localNode) error {
	args := l.javaArgs(n, toolJVM, "kafka.tools.StorageTool",
		"format", "-t", l.clusterID, "-c", filepath.Join(n.Dir, "server.properties"))
	out, err := procutil.CombinedOutput(ctx, exec.Command(l.java, args...))
	if err != nil {
		return fmt.Errorf("node %d: kafka.tools.StorageTool format: %w\n%s", n.ID, err, tail(string(out), 15))
	}
	return nil
}

func (l *Local) startNode(n *localNode) error {
	logf, err := os.OpenFile(n.Log, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "=== chaosbench: starting node %d at %s ===\n", n.ID, time.Now().UTC().Format(time.RFC3339Nano))
	cmd := exec.Command(l.java, l.javaArgs(n, brokerJVM(l.cfg.HeapMB), "kafka.Kafka", filepath.Join(n.Dir, "server.properties"))...)
	cmd.Stdout = logf
	cmd.Stderr = logf
	cmd.Dir = n.Dir
	p, err := procutil.Start(cmd, l.cfg.Detached)
	if err != nil {
		return fmt.Errorf("node %d: start kafka.Kafka: %w", n.ID, err)
	}
	n.proc = p
	n.PID = p.PID()
	return nil
}

// allAlive reports the first node that exited, with the end of its log.
func (l *Local) allAlive() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, n := range l.nodes {
		if n.proc != nil && n.proc.Exited() {
			return fmt.Errorf("node %d exited during start-up (%v); end of %s:\n%s",
				n.ID, n.proc.ExitErr(), n.Log, tailFile(n.Log, 15))
		}
	}
	return nil
}

func (n *localNode) alive() bool {
	if n.proc != nil {
		return !n.proc.Exited()
	}
	return procutil.Alive(n.PID, "kafka.Kafka")
}

func (l *Local) node(id int) (*localNode, error) {
	for _, n := range l.nodes {
		if n.ID == id {
			return n, nil
		}
	}
	return nil, fmt.Errorf("no node %d (nodes: %v)", id, l.NodeIDs())
}

// KillNode implements Nodes.
func (l *Local) KillNode(id int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.node(id)
	if err != nil {
		return err
	}
	return l.signalNode(n, syscall.SIGKILL, 10*time.Second)
}

// StopNode implements Nodes.
func (l *Local) StopNode(ctx context.Context, id int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.node(id)
	if err != nil {
		return err
	}
	return l.stopNode(n)
}

// stopNode asks for a controlled shutdown and kills the node if it takes
// longer than 30s (a node whose quorum is gone may wait forever).
func (l *Local) stopNode(n *localNode) error {
	if err := l.signalNode(n, syscall.SIGTERM, 30*time.Second); err != nil {
		return l.signalNode(n, syscall.SIGKILL, 10*time.Second)
	}
	return nil
}

func (l *Local) signalNode(n *localNode, sig syscall.Signal, wait time.Duration) error {
	if n.proc != nil {
		return n.proc.SignalWait(sig, wait)
	}
	return procutil.SignalGroupWait(n.PID, "kafka.Kafka", sig, wait)
}

// StartNode implements Nodes.
func (l *Local) StartNode(ctx context.Context, id int) error {
	l.mu.Lock()
	n, err := l.node(id)
	if err == nil {
		if n.alive() {
			err = fmt.Errorf("node %d is running", id)
		} else {
			err = l.startNode(n)
		}
	}
	l.mu.Unlock()
	if err != nil {
		return err
	}
	return l.waitReady(ctx)
}

func tailFile(path string, lines int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return tail(string(b), lines)
}
