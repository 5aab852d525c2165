import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.apache.kafka.common.utils.Utils;

/**
 * Reads "partitions<TAB>key" lines on stdin and prints
 * "murmur2(key)<TAB>partition" for each, as Kafka's Java producer computes
 * them: the partition is what the default partitioner picks for a keyed
 * record.
 */
public class PartitionCheck {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        StringBuilder out = new StringBuilder();
        String line;
        while ((line = in.readLine()) != null) {
            int tab = line.indexOf('\t');
            int partitions = Integer.parseInt(line.substring(0, tab));
            byte[] key = line.substring(tab + 1).getBytes(StandardCharsets.UTF_8);
            out.append(Utils.murmur2(key)).append('\t')
               .append(BuiltInPartitioner.partitionForKey(key, partitions)).append('\n');
        }
        System.out.print(out);
    }
}
