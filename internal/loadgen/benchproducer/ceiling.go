package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/chaosbench/chaosbench/internal/loadgen"
	"github.com/chaosbench/chaosbench/internal/partitioner"
)

// confluentCeiling measures confluent-kafka-go alone, without loadgen:
// the same keyed records as loadgen's, with and without loadgen's three
// headers, a bare delivery-report loop and nothing recorded. It tells how
// much of loadgen's rate the client library itself allows.
func confluentCeiling(bootstrap, topic string, records, partitions, valueSize, linger, batch int, headers bool) (float64, error) {
	p, err := kafka.NewProducer(&kafka.ConfigMap{
		"bootstrap.servers": bootstrap, "acks": "-1", "enable.idempotence": true,
		"linger.ms": linger, "batch.size": batch, "go.delivery.report.fields": "none",
		"queue.buffering.max.messages": 300000, "go.logs.channel.enable": true,
	})
	if err != nil {
		return 0, err
	}
	defer p.Close()
	go func() {
		for range p.Logs() {
		}
	}()
	if _, err := p.GetMetadata(&topic, false, 10000); err != nil {
		return 0, err
	}
	tokens := make(chan struct{}, 100000)
	done := make(chan error, 1)
	go func() {
		n := 0
		for ev := range p.Events() {
			m, ok := ev.(*kafka.Message)
			if !ok {
				continue
			}
			<-tokens
			if m.TopicPartition.Error != nil {
				done <- m.TopicPartition.Error
				return
			}
			if n++; n == records {
				done <- nil
				return
			}
		}
	}()
	value := make([]byte, valueSize)
	msg := kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic}, Value: value}
	hs := []kafka.Header{{Key: loadgen.HeaderProducer, Value: []byte("producer-0")}, {Key: loadgen.HeaderSeq}, {Key: loadgen.HeaderIntendedT}}
	var key []byte
	start := time.Now()
	for i := 0; i < records; i++ {
		tokens <- struct{}{}
		key = fmt.Appendf(key[:0], "k%06d", i%10000)
		msg.Key = key
		msg.TopicPartition.Partition = partitioner.Murmur2Partitioner.Partition(key, int32(partitions))
		if headers {
			hs[1].Value = strconv.AppendInt(hs[1].Value[:0], int64(i/10000), 10)
			hs[2].Value = strconv.AppendInt(hs[2].Value[:0], time.Now().UnixNano(), 10)
			msg.Headers = hs
		}
		for {
			err := p.Produce(&msg, nil)
			if err == nil {
				break
			}
			if ke, ok := err.(kafka.Error); !ok || ke.Code() != kafka.ErrQueueFull {
				return 0, err
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	if err := <-done; err != nil {
		return 0, err
	}
	return float64(records) / time.Since(start).Seconds(), nil
}
