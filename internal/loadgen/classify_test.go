package loadgen

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

func TestAmbiguousErrors(t *testing.T) {
	for _, c := range []struct {
		err  error
		want bool
	}{
		{kafka.NewError(kafka.ErrMsgTimedOut, "timed out", false), true},
		{kafka.NewError(kafka.ErrPurgeInflight, "purged in flight", false), true},
		{kafka.NewError(kafka.ErrNotEnoughReplicasAfterAppend, "", false), true},
		{kafka.NewError(kafka.ErrPurgeQueue, "purged in queue", false), false},
		{kafka.NewError(kafka.ErrMsgSizeTooLarge, "too large", false), false},
		{kafka.NewError(kafka.ErrUnknownPartition, "", false), false},
		{kafka.NewError(kafka.ErrNotEnoughReplicas, "rejected before append", false), false},
	} {
		if got := confluentAmbiguous(c.err); got != c.want {
			t.Errorf("confluent %v: ambiguous %v, want %v", c.err, got, c.want)
		}
	}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{kgo.ErrRecordTimeout, true},
		{kgo.ErrRecordRetries, true},
		{kgo.ErrAborting, true},
		{fmt.Errorf("wrapped: %w", context.DeadlineExceeded), true},
		{kerr.NotEnoughReplicasAfterAppend, true},
		{kerr.RequestTimedOut, true},
		{kerr.MessageTooLarge, false},
		{kerr.InvalidRecord, false},
		{kerr.TopicAuthorizationFailed, false},
		{errors.New("something else"), true},
	} {
		if got := franzAmbiguous(c.err); got != c.want {
			t.Errorf("franz %v: ambiguous %v, want %v", c.err, got, c.want)
		}
	}
}

// A delivered record's offset as librdkafka reports it, as the history
// takes it: no offset (kafka.OffsetInvalid and the other logical offsets)
// is -1, which a history holds; a real offset stays.
func TestKnownOffset(t *testing.T) {
	for _, c := range []struct {
		in   kafka.Offset
		want int64
	}{
		{kafka.OffsetInvalid, -1}, {kafka.OffsetEnd, -1}, {kafka.OffsetBeginning, -1},
		{0, 0}, {1, 1}, {1 << 39, 1 << 39},
	} {
		if got := knownOffset(c.in); got != c.want {
			t.Errorf("knownOffset(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}
