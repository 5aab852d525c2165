package runner

import (
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/cluster"
	"github.com/chaosbench/chaosbench/workloads"
)

// A network step is refused before the run on a cluster whose brokers
// advertise addresses the harness does not control, naming why.
func TestCheckNetworkRefusesClustersWithoutPaths(t *testing.T) {
	t.Setenv("KAFKA_BOOTSTRAP", "")
	net, err := workloads.Parse("net.yaml", []byte("duration: 1m\nchaos:\n  steps:\n    - {at: 10s, action: disconnect, target: m1, duration: 5s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	plain, err := workloads.Parse("plain.yaml", []byte("duration: 1m\n"))
	if err != nil {
		t.Fatal(err)
	}
	brokerCut, err := workloads.Parse("cut.yaml", []byte("duration: 1m\nbroker: {brokers: 3}\nchaos:\n  steps:\n    - {at: 10s, action: disconnect, broker: 2, duration: 15s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		o    cluster.Options
		bad  bool
	}{
		{"external", cluster.Options{Provider: cluster.ProviderExternal, Bootstrap: "k:9092"}, true},
		{"auto with a bootstrap", cluster.Options{Bootstrap: "k:9092"}, true},
		{"docker", cluster.Options{Provider: cluster.ProviderDocker}, true},
		{"local", cluster.Options{Provider: cluster.ProviderLocal}, false},
		{"auto", cluster.Options{}, false},
	} {
		err := CheckNetwork(net, tc.o)
		if tc.bad != (err != nil) {
			t.Errorf("%s: got %v", tc.name, err)
		}
		if err != nil && (!strings.Contains(err.Error(), "net.yaml") || !strings.Contains(err.Error(), "need the local provider")) {
			t.Errorf("%s: the error does not name the file and why: %v", tc.name, err)
		}
		if err := CheckNetwork(plain, tc.o); err != nil {
			t.Errorf("%s: a workload without network steps refused: %v", tc.name, err)
		}
		err = CheckNetwork(brokerCut, tc.o)
		if tc.bad != (err != nil) {
			t.Errorf("%s: a broker's cut: got %v", tc.name, err)
		}
		if err != nil && (!strings.Contains(err.Error(), "cut.yaml") || !strings.Contains(err.Error(), "need the local provider") ||
			!strings.Contains(err.Error(), "brokers reach each other directly")) {
			t.Errorf("%s: the error does not name the file and why a broker cannot be cut off: %v", tc.name, err)
		}
	}
}
