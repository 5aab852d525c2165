package member

import "testing"

func TestOutputRoundTrip(t *testing.T) {
	for _, o := range []Output{
		{Partition: 3, Offset: 17, Producer: "producer-0", Seq: 42, Writer: "m2", WriterInc: 1, Txn: 5, T: 1_700_000_000_000_000_000},
		{Partition: 0, Offset: 0, Producer: "", Seq: 0, Writer: "m1", Txn: 1, T: 1},
	} {
		got, err := ParseOutput(AppendOutput(nil, o))
		if err != nil || got != o {
			t.Errorf("round trip of %+v: got %+v, %v", o, got, err)
		}
	}
	for _, bad := range []string{"", "cbo1 1 2", "xxxx 1 2 p 3 m1 0 1 5", "cbo1 -1 2 p 3 m1 0 1 5", "cbo1 1 x p 3 m1 0 1 5"} {
		if _, err := ParseOutput([]byte(bad)); err == nil {
			t.Errorf("%q: parsed", bad)
		}
	}
}
