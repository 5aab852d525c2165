package vocab

import "testing"

// A client that does not implement a policy refuses it with its reason
// (every client implements every policy today: the rule is tested on a
// client made to lack one).
func TestSupportsPolicyRefuses(t *testing.T) {
	saved := clients
	defer func() { clients = saved }()
	clients = append([]Client(nil), saved...)
	clients[0].LacksPolicies = map[string]string{PolicyTransactional: "not built here"}
	if ok, why := SupportsPolicy(clients[0].Name, PolicyTransactional); ok || why != "not built here" {
		t.Errorf("supported %v, why %q", ok, why)
	}
	if ok, _ := SupportsPolicy(clients[0].Name, PolicySyncBatch); !ok {
		t.Error("a policy the client does not lack is refused")
	}
}
