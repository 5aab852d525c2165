package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/chaosbench/chaosbench/internal/cli"
	"github.com/chaosbench/chaosbench/internal/partitioner"
)

func partitionCommand(args []string) error {
	return partition(args, os.Stdin, os.Stdout, os.Stderr)
}

func partition(args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("loadgen partition", stderr)
	name := fs.String("partitioner", "murmur2", "partitioner: "+strings.Join(partitioner.Names(), ", ")+
		" (murmur2 is Java's default partitioner and librdkafka's murmur2_random; consistent is librdkafka's default; librdkafka's names are accepted too)")
	n := fs.Int("partitions", 0, "the topic's partition count (required)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: loadgen partition --partitioner NAME --partitions N KEY...\n\nPrints each key, a tab and its partition. With no KEY, or KEY -, keys are read from stdin, one per line.")
		fs.PrintDefaults()
	}
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	p, err := partitioner.New(*name)
	if err != nil {
		return cli.Usagef("--partitioner: %v", err)
	}
	if *n < 1 || *n > math.MaxInt32 {
		return cli.Usagef("--partitions %d: expected the topic's partition count, 1 to %d", *n, math.MaxInt32)
	}
	w := bufio.NewWriter(stdout)
	defer w.Flush()
	print := func(key string) {
		fmt.Fprintf(w, "%s\t%d\n", key, p.Partition([]byte(key), int32(*n)))
	}
	keys := fs.Args()
	if len(keys) == 0 || (len(keys) == 1 && keys[0] == "-") {
		sc := bufio.NewScanner(stdin)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			print(sc.Text())
		}
		if err := sc.Err(); err != nil {
			return fmt.Errorf("stdin: %w", err)
		}
		return w.Flush()
	}
	for _, k := range keys {
		print(k)
	}
	return w.Flush()
}
