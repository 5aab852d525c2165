package member

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

func validConfig() Config {
	return Config{Name: "m1", HistoryDir: "/tmp/h", Bootstrap: "127.0.0.1:9092", Group: "g", Topic: "t",
		Strategy: Range, Policy: PolicySyncBatch}
}

func TestConfigDefaults(t *testing.T) {
	c := validConfig()
	if err := c.validate(); err != nil {
		t.Fatal(err)
	}
	if c.Client != ClientConfluent || c.MaxPollRecords != 500 || c.SessionTimeout != 45*time.Second ||
		c.HeartbeatInterval != 3*time.Second || c.MaxPollInterval != 300*time.Second {
		t.Errorf("defaults: %+v", c)
	}
	s := validConfig()
	s.Strategy = Sticky
	if err := s.validate(); err != nil || s.Client != ClientFranz {
		t.Errorf("sticky defaults to franz: client %q, %v", s.Client, err)
	}
}

func TestConfigErrorsNameTheFlag(t *testing.T) {
	for _, tc := range []struct {
		edit func(*Config)
		want string
	}{
		{func(c *Config) { c.Name = "bad name" }, "--name"},
		{func(c *Config) { c.Strategy = "sticky"; c.Client = ClientConfluent }, "no eager sticky"},
		{func(c *Config) { c.Strategy = "fair" }, "--strategy"},
		{func(c *Config) { c.Policy = "sometimes" }, "--policy"},
		{func(c *Config) { c.Client = "sarama" }, "--client"},
		{func(c *Config) { c.Processing.Distribution = "normal" }, "--processing-distribution"},
		{func(c *Config) { c.HeartbeatInterval = 10 * time.Second; c.SessionTimeout = 5 * time.Second }, "--heartbeat-interval"},
		{func(c *Config) { c.MaxPollRecords = -1 }, "--max-poll-records"},
		{func(c *Config) { c.Topic = "" }, "--topic"},
		{func(c *Config) {
			c.Client = ClientFranz
			c.Props = map[string]string{"isolation.level": "read_committed"}
		}, "-X isolation.level"},
		{func(c *Config) { c.Client = ClientFranz; c.Props = map[string]string{"fetch.max.wait.ms": "soon"} }, "-X fetch.max.wait.ms=soon"},
		{func(c *Config) { c.Client = ClientFranz; c.Strategy = ConsumerUniform; c.Static = true }, "--static"},
	} {
		c := validConfig()
		tc.edit(&c)
		err := c.validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v", tc.want, err)
		}
	}
}

func TestProcessingCostDistributions(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 20000
	mean := func(p Processing) time.Duration {
		var sum time.Duration
		for i := 0; i < n; i++ {
			d := p.sample(r)
			if d < 0 {
				t.Fatalf("%v: negative cost %s", p, d)
			}
			sum += d
		}
		return sum / n
	}
	if got := mean(Processing{Cost: time.Millisecond}); got != time.Millisecond {
		t.Errorf("fixed: mean %s", got)
	}
	for _, p := range []Processing{{Cost: time.Millisecond, Distribution: "uniform", Jitter: 500 * time.Microsecond}, {Cost: time.Millisecond, Distribution: "exponential"}} {
		if got := mean(p); got < 950*time.Microsecond || got > 1050*time.Microsecond {
			t.Errorf("%v: mean %s, want 1ms within 5%%", p, got)
		}
	}
}
