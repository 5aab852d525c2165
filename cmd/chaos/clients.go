package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/chaosbench/chaosbench/internal/vocab"
	"github.com/chaosbench/chaosbench/workloads"
)

// overrideClients sets the clients every strategy of the workload runs
// on (each on those of them that implement it), as --clients gives them:
// any client of the vocabulary, whether the workload lists it or not, so
// that one workload runs side by side on another client.
func overrideClients(spec *workloads.Spec, list string) error {
	if list == "" {
		return nil
	}
	var clients []string
	for _, c := range strings.Split(list, ",") {
		c = strings.TrimSpace(c)
		if _, ok := vocab.LookupClient(c); !ok {
			return fmt.Errorf("--clients %s: unknown client %q; expected %s", list, c, strings.Join(vocab.ClientNames(), ", "))
		}
		if !slices.Contains(clients, c) {
			clients = append(clients, c)
		}
	}
	for _, st := range spec.Strategies {
		runs := slices.ContainsFunc(clients, func(c string) bool { ok, _ := vocab.Supports(c, st); return ok })
		if !runs {
			_, why := vocab.Supports(clients[0], st)
			return fmt.Errorf("--clients %s: strategy %s runs on none of them (%s); narrow --strategies", list, st, why)
		}
	}
	spec.Clients = clients
	return nil
}
