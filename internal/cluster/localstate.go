package cluster

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// stateFile describes a detached cluster so that a later `chaos cluster
// status` or `down` can find its processes.
const stateFile = "state.json"

type localState struct {
	ClusterID string       `json:"cluster_id"`
	Version   string       `json:"kafka_version"`
	Libs      string       `json:"libs"`
	Settings  Settings     `json:"settings"`
	Nodes     []*localNode `json:"nodes"`
	Started   time.Time    `json:"started"`
}

func (l *Local) saveState() error {
	st := localState{ClusterID: l.clusterID, Version: l.dist.Version, Libs: l.dist.Libs,
		Settings: l.settings, Nodes: l.nodes, Started: time.Now().UTC()}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(l.dir, stateFile+".tmp")
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(l.dir, stateFile))
}

// ErrNotRunning is returned by AttachLocal when no detached cluster is
// recorded in the folder.
var ErrNotRunning = errors.New("no local cluster running")

// AttachLocal finds the detached cluster that `chaos cluster up` started in
// dir. Closing it stops its brokers.
func AttachLocal(dir string) (*Local, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w in %s", ErrNotRunning, dir)
	}
	if err != nil {
		return nil, err
	}
	var st localState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, stateFile), err)
	}
	l := &Local{
		cfg:       LocalConfig{Nodes: len(st.Nodes), Dir: dir, Detached: true, ReadyTimeout: 120 * time.Second, HeapMB: 1024},
		dist:      Dist{Libs: st.Libs, Version: st.Version, Source: "state.json"},
		clusterID: st.ClusterID,
		dir:       dir,
		settings:  st.Settings,
		nodes:     st.Nodes,
	}
	if l.java, err = JavaCommand(); err != nil {
		return nil, err
	}
	if l.adm, err = NewAdmin(l.Bootstrap(), nil); err != nil {
		return nil, err
	}
	return l, nil
}
