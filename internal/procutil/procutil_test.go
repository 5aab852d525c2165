package procutil

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"
)

// When CHAOSBENCH_PROCUTIL_PARENT is set, the test binary plays a harness:
// it starts a long sleep as a child, prints the child's pid and waits to be
// killed.
func TestMain(m *testing.M) {
	if os.Getenv("CHAOSBENCH_PROCUTIL_PARENT") != "" {
		p, err := Start(exec.Command("sleep", "300"), false)
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Println(p.PID())
		select {}
	}
	os.Exit(m.Run())
}

// TestNoOrphanAfterParentKilled SIGKILLs a parent (which runs no cleanup)
// and checks that its child died with it.
func TestNoOrphanAfterParentKilled(t *testing.T) {
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), "CHAOSBENCH_PROCUTIL_PARENT=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	child, err := strconv.Atoi(line[:len(line)-1])
	if err != nil {
		t.Fatalf("parent said %q", line)
	}
	if !Alive(child, "sleep") {
		t.Fatalf("child %d not running", child)
	}
	if err := parent.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = parent.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for Alive(child, "sleep") {
		if time.Now().After(deadline) {
			_ = syscall.Kill(child, syscall.SIGKILL)
			t.Fatalf("child %d outlived its SIGKILLed parent", child)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestSignalsReachTheChild(t *testing.T) {
	p, err := Start(exec.Command("sleep", "300"), false)
	if err != nil {
		t.Fatal(err)
	}
	if err := p.SignalWait(syscall.SIGSTOP, 0); err != nil {
		t.Fatal(err)
	}
	if state := procState(t, p.PID()); state != 'T' {
		t.Errorf("after SIGSTOP the child is in state %c, want T (stopped)", state)
	}
	if err := p.SignalWait(syscall.SIGCONT, 0); err != nil {
		t.Fatal(err)
	}
	if err := p.SignalWait(syscall.SIGKILL, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	ws, ok := p.State().Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("exit state %v, want killed by SIGKILL", p.State())
	}
	if Alive(p.PID(), "sleep") {
		t.Error("child alive after SIGKILL")
	}
}

func procState(t *testing.T, pid int) byte {
	t.Helper()
	deadline := time.Now().Add(2 * time.Second)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			t.Fatal(err)
		}
		var state byte
		for i := len(b) - 1; i >= 0; i-- {
			if b[i] == ')' {
				state = b[i+2]
				break
			}
		}
		if state == 'T' || time.Now().After(deadline) {
			return state
		}
		time.Sleep(10 * time.Millisecond)
	}
}
