package loadgen

import (
	"fmt"
	"testing"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"
)

// librdkafkaPartitions produces n keyed records with librdkafka choosing
// the partition with its partitioner, and returns where each key landed.
func librdkafkaPartitions(t *testing.T, bootstrap, topic, part string, n int) map[string]int32 {
	t.Helper()
	p, err := kafka.NewProducer(&kafka.ConfigMap{
		"bootstrap.servers": bootstrap,
		"partitioner":       part,
		"linger.ms":         5,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	reports := make(chan kafka.Event, n)
	for i := 0; i < n; i++ {
		// Keys of many shapes: formatted, short, long, binary-ish.
		var key string
		switch i % 4 {
		case 0:
			key = kafkaKey("k%06d", i)
		case 1:
			key = kafkaKey("tenant-%d", i)
		case 2:
			key = kafkaKey("%d", i)
		default:
			key = kafkaKey("user:\u00e9\u2713/%d/with/a/longer/path/that/goes/on", i)
		}
		if err := p.Produce(&kafka.Message{
			TopicPartition: kafka.TopicPartition{Topic: &topic, Partition: kafka.PartitionAny},
			Key:            []byte(key),
			Value:          []byte("v"),
		}, reports); err != nil {
			t.Fatal(err)
		}
	}
	out := map[string]int32{}
	for i := 0; i < n; i++ {
		m := (<-reports).(*kafka.Message)
		if m.TopicPartition.Error != nil {
			t.Fatalf("delivery: %v", m.TopicPartition.Error)
		}
		out[string(m.Key)] = m.TopicPartition.Partition
	}
	return out
}

func kafkaKey(format string, i int) string { return fmt.Sprintf(format, i) }
