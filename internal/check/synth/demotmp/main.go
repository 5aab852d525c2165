package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/chaosbench/chaosbench/internal/check/synth"
)

func main() {
	root := os.Args[1]
	cfgs := []struct {
		strat, pol string
		takeover   time.Duration
		kills      []synth.Kill
		lost       int
	}{
		{"range", "sync-batch", 6 * time.Second, []synth.Kill{{At: 20 * time.Second, Member: 1}}, 0},
		{"roundrobin", "sync-batch", 6 * time.Second, []synth.Kill{{At: 20 * time.Second, Member: 2}}, 0},
		{"sticky", "sync-batch", 4 * time.Second, []synth.Kill{{At: 20 * time.Second, Member: 0}, {At: 40 * time.Second, Member: 1}}, 0},
		{"cooperative-sticky", "async-batch", 2 * time.Second, []synth.Kill{{At: 20 * time.Second, Member: 1}}, 3},
	}
	for i, c := range cfgs {
		dir := filepath.Join(root, c.strat+"."+c.pol+".synth")
		_, err := synth.Write(dir, synth.Config{Seed: int64(i + 1), Partitions: 12, Members: 4, Keys: 500, Records: 30000, Rate: 500,
			Latency: 8 * time.Millisecond, CommitEvery: time.Second, Takeover: c.takeover, Kills: c.kills, Strategy: c.strat, Policy: c.pol, Lost: c.lost})
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
	}
}
