package cluster

import (
	"flag"
	"fmt"

	"github.com/chaosbench/chaosbench/internal/kafkaconf"
)

// Flags are the command-line flags every command that needs a cluster
// shares: which provider, and how to reach or start it.
type Flags struct {
	Provider  string
	Bootstrap string
	Props     kafkaconf.Flag
	Brokers   int
	Settings  settingsFlag
}

type settingsFlag struct{ s Settings }

func (f *settingsFlag) String() string { return fmt.Sprint(f.s) }
func (f *settingsFlag) Set(v string) error {
	k, val, err := ParseSetting(v)
	if err != nil {
		return err
	}
	if f.s == nil {
		f.s = Settings{}
	}
	f.s[k] = val
	return nil
}

// Register adds the flags to fs.
func (f *Flags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.Provider, "provider", ProviderAuto, "Kafka cluster: auto, external, local or docker (auto: external if a bootstrap is given, else local, else docker)")
	fs.StringVar(&f.Bootstrap, "bootstrap", "", "bootstrap.servers of an existing cluster (default $KAFKA_BOOTSTRAP); none: start a local one")
	f.Props.Register(fs)
	fs.IntVar(&f.Brokers, "brokers", 1, "brokers of a local cluster: 1 or 3")
	fs.Var(&f.Settings, "broker-config", "broker property key=value of a local or docker cluster, repeatable")
}

// Check rejects flag values that Open would reject only after a command
// has started writing its results: an unknown provider, a broker count
// other than 1 or 3.
func (f *Flags) Check() error {
	switch f.Provider {
	case "", ProviderAuto, ProviderExternal, ProviderLocal, ProviderDocker:
	default:
		return fmt.Errorf("--provider %q: expected auto, external, local or docker", f.Provider)
	}
	if f.Brokers != 1 && f.Brokers != 3 {
		return fmt.Errorf("--brokers %d: expected 1 or 3", f.Brokers)
	}
	return nil
}

// Options returns the provider options the flags describe; logDir receives
// a local cluster's broker logs, extra settings come before the flags'.
func (f *Flags) Options(logDir string, extra Settings) Options {
	return Options{
		Provider:  f.Provider,
		Bootstrap: f.Bootstrap,
		Props:     f.Props.Props,
		Local: LocalConfig{
			Nodes:    f.Brokers,
			LogDir:   logDir,
			Settings: extra.Merge(f.Settings.s),
		},
	}
}
