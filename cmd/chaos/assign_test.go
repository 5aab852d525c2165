package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadGroupErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ input, want string }{
		{`{"topics": {"t0": 3}, "members": [{"id": "c0", "topics": ["t0"], "owned": {"t0": [5]}}]}`,
			"g.json: members[0].owned.t0: partition 5 out of range; t0 has partitions 0 to 2"},
		{"{\"topics\": {\"t0\": 3},\n \"members\": [{\"id\": 7}]}", "g.json:2: members.id: got a JSON number, expected a string"},
		{`{"topics": {"t0": 3}, "members": [{"id": "c0", "topics": ["t0"]}, {"id": "c0", "topics": ["t0"]}]}`,
			`g.json: members[1].id: "c0" is also the id of members[0]`},
		{`{"members": [{"id": "c0", "topics": ["t0"]}]}`, "g.json: topics: missing"},
		{`{"topics": {"t0": 3}, "members": [], "extra": 1}`, `g.json: json: unknown field "extra"`},
	} {
		path := filepath.Join(dir, "g.json")
		if err := os.WriteFile(path, []byte(c.input), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := readGroup(path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("readGroup(%s) = %v, want an error containing %q", c.input, err, strings.TrimPrefix(c.want, ""))
		}
	}
}
