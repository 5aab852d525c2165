package cluster

import (
	"encoding/base64"
	"strings"
	"testing"
)

func TestJavaMajor(t *testing.T) {
	for out, want := range map[string]int{
		`openjdk version "17.0.15" 2025-04-15`: 17,
		`openjdk version "25" 2025-09-16`:      25,
		`java version "1.8.0_292"`:             8,
	} {
		got, err := javaMajor(out)
		if err != nil || got != want {
			t.Errorf("javaMajor(%q) = %d, %v; want %d", out, got, err, want)
		}
	}
	if _, err := javaMajor("no version here"); err == nil {
		t.Error("javaMajor accepted output without a version")
	}
}

func TestClusterIDIsAKafkaUUID(t *testing.T) {
	for i := 0; i < 100; i++ {
		id, err := newClusterID()
		if err != nil {
			t.Fatal(err)
		}
		b, err := base64.RawURLEncoding.DecodeString(id)
		if err != nil || len(b) != 16 || strings.HasPrefix(id, "-") {
			t.Fatalf("cluster id %q: %d bytes, %v", id, len(b), err)
		}
	}
}

func TestReservedSettingsRejected(t *testing.T) {
	if err := checkReservedSettings(Settings{"log.dirs": "/x"}); err == nil || !strings.Contains(err.Error(), "log.dirs") {
		t.Errorf("log.dirs accepted: %v", err)
	}
	if err := checkReservedSettings(Settings{"group.initial.rebalance.delay.ms": "0"}); err != nil {
		t.Error(err)
	}
}

func TestParseSetting(t *testing.T) {
	k, v, err := ParseSetting("group.initial.rebalance.delay.ms=0")
	if err != nil || k != "group.initial.rebalance.delay.ms" || v != "0" {
		t.Errorf("got %q %q %v", k, v, err)
	}
	for _, bad := range []string{"novalue", "=3", ""} {
		if _, _, err := ParseSetting(bad); err == nil {
			t.Errorf("ParseSetting(%q) accepted", bad)
		}
	}
}

func TestDefaultLocalSettingsReplication(t *testing.T) {
	if got := DefaultLocalSettings(1)["offsets.topic.replication.factor"]; got != "1" {
		t.Errorf("1 node: offsets RF %s", got)
	}
	if got := DefaultLocalSettings(3)["offsets.topic.replication.factor"]; got != "3" {
		t.Errorf("3 nodes: offsets RF %s", got)
	}
}

func TestPickPortsDistinct(t *testing.T) {
	ports, err := pickPorts(0, 3)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ports {
		if p == 0 || seen[p] {
			t.Fatalf("ports %v", ports)
		}
		seen[p] = true
	}
}
