package main

import (
	"fmt"
	"strconv"
	"time"

	"github.com/confluentinc/confluent-kafka-go/v2/kafka"

	"github.com/chaosbench/chaosbench/internal/partitioner"
	"github.com/chaosbench/chaosbench/internal/stamp"
)

// ceilingForm is how a record of the ceiling run carries the producer's
// bookkeeping (producer, seq, intended time).
type ceilingForm int

const (
	bare         ceilingForm = iota // not at all: the same value for every record
	stamped                         // loadgen's stamp at the front of the value
	oneHeader                       // the three values as text in one header
	threeHeaders                    // three headers, loadgen's record format before the stamp
)

// confluentCeiling measures confluent-kafka-go alone, without loadgen: the
// same keyed records as loadgen's, carrying the bookkeeping in one of the
// forms above; a bare delivery-report loop and nothing recorded. It tells
// how much of loadgen's rate the client library itself allows, and what
// each form of the bookkeeping costs. Its CPU time is this whole
// process's over the run (the admin client idles meanwhile).
func confluentCeiling(bootstrap, topic string, records, partitions, valueSize, linger, batch int, form ceilingForm) (measurement, error) {
	cpu0 := selfCPU()
	m, err := confluentCeilingRate(bootstrap, topic, records, partitions, valueSize, linger, batch, form)
	m.cpu = selfCPU() - cpu0
	return m, err
}

func confluentCeilingRate(bootstrap, topic string, records, partitions, valueSize, linger, batch int, form ceilingForm) (measurement, error) {
	p, err := kafka.NewProducer(&kafka.ConfigMap{
		"bootstrap.servers": bootstrap, "acks": "-1", "enable.idempotence": true,
		"linger.ms": linger, "batch.size": batch, "go.delivery.report.fields": "none",
		"queue.buffering.max.messages": 300000, "go.logs.channel.enable": true,
	})
	if err != nil {
		return measurement{}, err
	}
	defer p.Close()
	go func() {
		for range p.Logs() {
		}
	}()
	if _, err := p.GetMetadata(&topic, false, 10000); err != nil {
		return measurement{}, err
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
	producer := []byte("producer-0")
	value := make([]byte, max(valueSize, stamp.Len(len(producer))))
	msg := kafka.Message{TopicPartition: kafka.TopicPartition{Topic: &topic}, Value: value}
	hs := []kafka.Header{{Key: "producer", Value: producer}, {Key: "seq"}, {Key: "intended_t"}}
	one := []kafka.Header{{Key: "cb"}}
	var key []byte
	start := time.Now()
	for i := 0; i < records; i++ {
		tokens <- struct{}{}
		key = fmt.Appendf(key[:0], "k%06d", i%10000)
		msg.Key = key
		msg.TopicPartition.Partition = partitioner.Murmur2Partitioner.Partition(key, int32(partitions))
		switch form {
		case stamped:
			stamp.Put(value, stamp.Stamp{Producer: producer, Seq: int64(i / 10000), IntendedT: time.Now().UnixNano()})
		case threeHeaders:
			hs[1].Value = strconv.AppendInt(hs[1].Value[:0], int64(i/10000), 10)
			hs[2].Value = strconv.AppendInt(hs[2].Value[:0], time.Now().UnixNano(), 10)
			msg.Headers = hs
		case oneHeader:
			v := append(one[0].Value[:0], "producer-0 "...)
			v = strconv.AppendInt(v, int64(i/10000), 10)
			v = append(v, ' ')
			one[0].Value = strconv.AppendInt(v, time.Now().UnixNano(), 10)
			msg.Headers = one
		}
		for {
			err := p.Produce(&msg, nil)
			if err == nil {
				break
			}
			if ke, ok := err.(kafka.Error); !ok || ke.Code() != kafka.ErrQueueFull {
				return measurement{}, err
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
	if err := <-done; err != nil {
		return measurement{}, err
	}
	return measurement{recordsPerSec: float64(records) / time.Since(start).Seconds()}, nil
}
