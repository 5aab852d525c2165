package chaosbench.member;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerInterceptor;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.SaslConfigs;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.network.ConnectionMode;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.ssl.SslFactory;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * The java client's member program. `chaos member --client java` checks
 * the JVM, builds this program once (internal/member/java.go) and execs
 * it with the member's own flags (member.Config.Args), so that the driver's
 * process, its pid, its signals and its control channel are this JVM's.
 *
 * <pre>
 *   Main FLAGS                 run the member
 *   Main --check FLAGS         check the configuration against Kafka's Java client, connect nowhere
 *   Main --print-config FLAGS  print this side's view of the flags and the consumer's properties (the contract test)
 *   Main --bare FLAGS          the bare consumer of the harness-overhead benchmark (Bare)
 *   Main --control FLAGS       the network control channel alone, no consumer (the test that holds Control to the Go endpoint)
 * </pre>
 *
 * Exit status 2: bad input (a flag, a property the client refuses), with
 * nothing written; 1: the member failed; 0: it ran until stopped.
 */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        String mode = "run";
        if (args.length > 0 && List.of("--check", "--print-config", "--bare", "--control").contains(args[0])) {
            mode = args[0].substring(2);
            args = java.util.Arrays.copyOfRange(args, 1, args.length);
        }
        Config cfg;
        try {
            cfg = Config.parse(args);
            cfg.readSecrets(System.getenv(Config.SECRETS_ENV));
            String token = System.getenv(Control.TOKEN_ENV);
            if (token != null) {
                cfg.controlToken = token;
            }
            Settings.strategy(cfg.strategy);
        } catch (IllegalArgumentException e) {
            log("chaos member: " + e.getMessage());
            System.exit(2);
            return;
        }
        switch (mode) {
            case "print-config" -> printConfig(cfg);
            case "check" -> System.exit(check(cfg) ? 0 : 2);
            case "bare" -> System.exit(check(cfg) ? Bare.run(cfg) : 2);
            case "control" -> System.exit(controlOnly(cfg));
            default -> {
                if (!check(cfg)) {
                    System.exit(2);
                }
                System.exit(run(cfg));
            }
        }
    }

    /**
     * Checks the consumer's properties as Kafka's Java client takes them,
     * connecting nowhere: unknown names, then ConsumerConfig's own checks
     * (types, ranges, the settings each group protocol refuses), then the
     * classes it names (interceptors, deserializers), instantiated and
     * closed, then the security protocol's stores and JAAS configuration
     * (checkSecurity). A consumer itself is not constructed: under the consumer
     * protocol its background thread would start connecting.
     */
    static boolean check(Config cfg) {
        try {
            Settings.checkNames(cfg);
            Map<String, Object> props = Settings.of(cfg);
            ConsumerConfig cc = new ConsumerConfig(props);
            String key = ConsumerConfig.INTERCEPTOR_CLASSES_CONFIG;
            try {
                for (ConsumerInterceptor<?, ?> i : cc.getConfiguredInstances(key, ConsumerInterceptor.class)) {
                    i.close();
                }
                for (String k : List.of(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG)) {
                    key = k;
                    cc.getConfiguredInstance(k, Deserializer.class).close();
                }
            } catch (KafkaException e) {
                Throwable t = e;
                while (t.getCause() != null) {
                    t = t.getCause();
                }
                throw new IllegalArgumentException("-X " + key + "=" + props.get(key) + ": kafka-clients " + Settings.version()
                    + " cannot load it: " + Member.describe(t));
            }
            checkSecurity(cc);
            return true;
        } catch (IllegalArgumentException | KafkaException e) {
            log("chaos member: " + refusal(e));
        }
        return false;
    }

    /**
     * Loads what the security protocol needs, as the client would before
     * its first connection, connecting nowhere: the TLS key and trust
     * stores (a PEM that does not parse, a key its password does not
     * decrypt), and the JAAS configuration of SASL (its syntax). A JAAS
     * configuration holds credentials, and the parser's message may quote
     * it: that message is withheld.
     */
    private static void checkSecurity(ConsumerConfig cc) {
        SecurityProtocol sp = SecurityProtocol.forName(cc.getString(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG));
        if (sp == SecurityProtocol.SSL || sp == SecurityProtocol.SASL_SSL) {
            try (SslFactory f = new SslFactory(ConnectionMode.CLIENT)) {
                f.configure(cc.values());
            } catch (KafkaException e) {
                Throwable t = e;
                while (t.getCause() != null) {
                    t = t.getCause();
                }
                String hint = "";
                if (t instanceof java.security.NoSuchAlgorithmException && cc.getPassword(SslConfigs.SSL_KEY_PASSWORD_CONFIG) != null) {
                    // Java 17 reads no PBES2 key (openssl's default encryption of PKCS#8).
                    hint = "; this JVM cannot decrypt the key: give it encrypted the traditional PEM way"
                        + " (openssl pkey -traditional -aes256, with ssl.key.location and ssl.key.password: chaosbench decrypts it for Java) or in clear";
                }
                throw new IllegalArgumentException("-X security.protocol=" + sp + ": kafka-clients " + Settings.version()
                    + " cannot load the TLS key or trust store (ssl.keystore.*, ssl.truststore.*): " + Member.describe(t) + hint);
            }
        }
        if (sp == SecurityProtocol.SASL_PLAINTEXT || sp == SecurityProtocol.SASL_SSL) {
            if (cc.getPassword(SaslConfigs.SASL_JAAS_CONFIG) == null && System.getProperty("java.security.auth.login.config") == null) {
                throw new IllegalArgumentException("-X security.protocol=" + sp + ": the java client needs credentials: "
                    + "sasl.mechanism with sasl.username and sasl.password, an unsecured OAUTHBEARER token, or Java's own sasl.jaas.config");
            }
            try {
                JaasContext.loadClientContext(cc.values());
            } catch (IllegalArgumentException | KafkaException | SecurityException e) {
                throw new IllegalArgumentException("-X sasl.jaas.config: kafka-clients " + Settings.version()
                    + " cannot read it (its message is withheld: it may quote a secret); expected, e.g., "
                    + "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"NAME\" password=\"SECRET\";");
            }
        }
    }

    /** What a configuration error says: the first ConfigException in the chain names the property. */
    private static String refusal(RuntimeException e) {
        if (e instanceof IllegalArgumentException) {
            return e.getMessage();
        }
        Throwable t = e;
        while (t.getCause() != null && !(t instanceof org.apache.kafka.common.config.ConfigException)) {
            t = t.getCause();
        }
        return "kafka-clients " + Settings.version() + " refuses the configuration: " + Member.describe(t);
    }

    /**
     * Runs the member. A SIGTERM (or SIGINT) is a graceful close: the JVM's
     * shutdown hook asks the member to stop and waits for it to have
     * committed and left the group, then ends the process with the
     * member's status. A SIGKILL is a crash: nothing runs.
     */
    static int run(Config cfg) {
        History hist;
        try {
            hist = History.open(cfg);
        } catch (IOException | RuntimeException e) {
            log("chaos member: history: " + e);
            return 1;
        }
        if (cfg.clockSkewNs != 0) {
            hist.skew(cfg.clockSkewNs);
        }
        try {
            // First: the started event, the member's start-up runs from here.
            History.Event e = new History.Event("member");
            e.state = "started";
            e.strategy = cfg.strategy;
            e.client = cfg.client;
            e.policy = cfg.policy;
            e.group = cfg.group;
            e.host = hostname();
            e.pid = ProcessHandle.current().pid();
            hist.append(e);
            ClockMeasure.record(cfg, hist);
            hist.flush();
        } catch (IOException e) {
            log("chaos member: " + e.getMessage());
            return 1;
        }
        Member m = new Member(cfg, hist);
        CountDownLatch done = new CountDownLatch(1);
        int[] status = {1};
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            m.requestStop();
            try {
                done.await(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            // halt, not exit: the status is the member's, not the signal's.
            Runtime.getRuntime().halt(status[0]);
        }, "stop"));
        try {
            status[0] = m.run();
        } catch (IOException | RuntimeException e) {
            // "Failed to construct kafka consumer" says nothing of why: the
            // innermost cause does.
            Throwable root = e;
            while (root.getCause() != null && root.getCause() != root) {
                root = root.getCause();
            }
            m.logf("%s", Member.describe(e) + (root == e ? "" : " (cause: " + Member.describe(root) + ")"));
            status[0] = configError(e) ? 2 : 1;
        }
        try {
            ClockMeasure.record(cfg, hist);
            hist.close();
        } catch (IOException e) {
            m.logf("%s", Member.describe(e));
            status[0] = 1;
        }
        done.countDown();
        return status[0];
    }

    /**
     * Runs the member's network control channel alone, with no consumer:
     * each command is carried out by the member's own handler, and each
     * one taken is printed on standard output with the stall it set. For
     * the test that holds the Java side of the protocol to the Go
     * endpoint (internal/member's TestJavaControlChannel). It ends when
     * the channel does (a refused handshake): status 1.
     */
    private static int controlOnly(Config cfg) {
        Member m = new Member(cfg, null);
        Control.run(cfg.controlAddr, cfg.controlToken, cfg.name, cfg.inc, cmd -> {
            String reason = m.command(cmd);
            if (reason == null) {
                synchronized (System.out) {
                    System.out.println("took " + cmd + " stall " + m.pendingStall());
                    System.out.flush();
                }
            }
            return reason;
        }, m::logLine);
        return 1;
    }

    /** Whether the consumer's construction refused the configuration. */
    private static boolean configError(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof org.apache.kafka.common.config.ConfigException) {
                return true;
            }
        }
        return false;
    }

    /** The host name, as Go's os.Hostname reads it. */
    private static String hostname() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/hostname"), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            String h = System.getenv("HOSTNAME");
            return h == null ? "" : h;
        }
    }

    /** Prints {"flags": {...}, "consumer": {...}} as one JSON line. */
    private static void printConfig(Config cfg) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("flags", cfg.view());
        Map<String, Object> consumer = new LinkedHashMap<>();
        Settings.of(cfg).forEach((k, v) -> consumer.put(k, String.valueOf(v)));
        out.put("consumer", consumer);
        out.put("kafka_clients", Settings.version());
        System.out.println(Json.encode(out));
    }

    /** Writes one line of the member's log (standard error). */
    static synchronized void log(String line) {
        System.err.println(line);
        System.err.flush();
    }
}
