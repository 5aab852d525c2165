package workloads

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/chaosbench/chaosbench/internal/kafkarelease"
)

func TestBrokerSettingsAsTheBrokerReadsThem(t *testing.T) {
	for _, c := range []struct{ name, value, want string }{
		{"group.initial.rebalance.delay.ms", "0", ""},
		{"group.initial.rebalance.delay.ms", " 3000 ", ""},
		{"group.initial.rebalance.delay.ms", "abc", `got "abc", expected an int (a 32-bit integer)`},
		{"group.initial.rebalance.delay.ms", "3000000000", "expected an int"},
		{"num.partitions", "1.5", "expected an int"},
		{"num.partitions", "0", "got 0, expected at least 1"},
		{"log.retention.ms", "-1", ""},
		{"log.retention.ms", "99999999999999999999", "expected a long"},
		{"offsets.topic.replication.factor", "40000", "expected a short"},
		{"auto.create.topics.enable", "FALSE", ""},
		{"auto.create.topics.enable", "maybe", "expected true or false"},
		{"compression.lz4.level", "18", "expected from 1 to 17"},
		{"log.cleaner.min.cleanable.ratio", "0.5", ""},
		{"log.cleaner.min.cleanable.ratio", "x", "expected a number"},
		{"group.initial.rebalance.delay.mz", "0", "not a broker setting of Kafka " + kafkarelease.Version + ", did you mean group.initial.rebalance.delay.ms?"},
		{"no.such.setting.at.all", "0", "not a broker setting"},
		{"listener.name.plaintext.sasl.enabled.mechanisms", "PLAIN", ""},
		{"log.dirs", "/tmp/x", "set by the local cluster"},
	} {
		got := checkBrokerSetting(c.name, c.value)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s=%s: %q, want %q", c.name, c.value, got, c.want)
		}
	}
}

// dumpBrokerSettings prints Kafka's broker settings (name, type, the
// validator's statement), one a line.
const dumpBrokerSettings = `import org.apache.kafka.common.config.ConfigDef;
import java.util.TreeMap;
public class Dump {
  public static void main(String[] a) throws Exception {
    ConfigDef def = (ConfigDef) Class.forName("kafka.server.KafkaConfig").getMethod("configDef").invoke(null);
    for (var e : new TreeMap<>(def.configKeys()).entrySet()) {
      var k = e.getValue();
      System.out.println(e.getKey() + "\t" + k.type + "\t" + (k.validator == null ? "" : k.validator.toString()));
    }
  }
}
`

// The table is Kafka's own definitions: the broker's jars, when they are
// here, say the same, and on a mismatch this prints the table to use.
func TestBrokerSettingsMatchKafka(t *testing.T) {
	if brokerSettingsRelease != kafkarelease.Version {
		t.Fatalf("the table is of Kafka %s, the local cluster runs %s: regenerate it", brokerSettingsRelease, kafkarelease.Version)
	}
	libs := os.Getenv("KAFKA_HOME")
	if libs != "" {
		libs = filepath.Join(libs, "libs")
	} else if cache, err := kafkarelease.CacheDir(); err == nil {
		libs = filepath.Join(cache, "kafka_2.13-"+kafkarelease.Version, "libs")
	}
	_, errJava := exec.LookPath("javac")
	if _, err := os.Stat(libs); err != nil || errJava != nil {
		if os.Getenv("CHAOSBENCH_REQUIRE_KAFKA") != "" {
			t.Fatalf("the Kafka jars (%s: %v) and a JDK (%v) are required", libs, err, errJava)
		}
		t.Skip("no Kafka jars or no JDK")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Dump.java"), []byte(dumpBrokerSettings), 0o644); err != nil {
		t.Fatal(err)
	}
	cp := filepath.Join(libs, "*")
	if out, err := exec.Command("javac", "-cp", cp, "-d", dir, filepath.Join(dir, "Dump.java")).CombinedOutput(); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	out, err := exec.Command("java", "-cp", cp+string(os.PathListSeparator)+dir, "Dump").Output()
	if err != nil {
		t.Fatalf("java: %v", err)
	}
	kinds := map[string]string{"BOOLEAN": "brokerBool", "INT": "brokerInt", "LONG": "brokerLong", "SHORT": "brokerShort", "DOUBLE": "brokerDouble",
		"STRING": "brokerString", "LIST": "brokerList", "CLASS": "brokerClass", "PASSWORD": "brokerPassword"}
	kindNames := map[brokerKind]string{brokerBool: "brokerBool", brokerInt: "brokerInt", brokerLong: "brokerLong", brokerShort: "brokerShort",
		brokerDouble: "brokerDouble", brokerString: "brokerString", brokerList: "brokerList", brokerClass: "brokerClass", brokerPassword: "brokerPassword"}
	rangeRe := regexp.MustCompile(`^\[(-?[0-9.]+),\.\.\.(?:,(-?[0-9.]+))?\]$`)
	var want, have []string
	for _, line := range strings.Split(strings.TrimRight(string(out), "\n"), "\n") {
		f := strings.SplitN(line, "\t", 3)
		if len(f) != 3 {
			t.Fatalf("unexpected line %q", line)
		}
		rng := ""
		if m := rangeRe.FindStringSubmatch(f[2]); m != nil && slices.Contains([]string{"INT", "LONG", "SHORT", "DOUBLE"}, f[1]) {
			rng = ", min: " + m[1] + ", hasMin: true"
			if m[2] != "" {
				rng += ", max: " + m[2] + ", hasMax: true"
			}
		}
		want = append(want, fmt.Sprintf("%q: {kind: %s%s},", f[0], kinds[f[1]], rng))
	}
	for name, st := range kafkaBrokerSettings {
		rng := ""
		if st.hasMin {
			rng = ", min: " + strconv.FormatFloat(st.min, 'f', -1, 64) + ", hasMin: true"
			if st.hasMax {
				rng += ", max: " + strconv.FormatFloat(st.max, 'f', -1, 64) + ", hasMax: true"
			}
		}
		have = append(have, fmt.Sprintf("%q: {kind: %s%s},", name, kindNames[st.kind], rng))
	}
	slices.Sort(want)
	slices.Sort(have)
	if !slices.Equal(want, have) {
		t.Errorf("kafkaBrokerSettings differs from Kafka %s's definitions; the table to use (gofmt it):\n\t%s", kafkarelease.Version, strings.Join(want, "\n\t"))
	}
}
