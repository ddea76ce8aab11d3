package dev.remora.check;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Malformed histories give exit code 65 and a message naming file, line and what was expected. */
class MalformedInputTest {
    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
        reused crashed process     | cas-register | jsonl | {"process":1,"type":"invoke","f":"write","value":1}\\n{"process":1,"type":"info","f":"write","value":1}\\n{"process":1,"type":"invoke","f":"read","value":null} | :3: process 1 crashed (info at line 2) and is reused; expected a fresh process id
        unmatched completion       | register     | jsonl | {"process":1,"type":"invoke","f":"write","value":1}\\n{"process":2,"type":"ok","f":"write","value":1} | :2: unmatched :ok completion of process 2; expected an :invoke
        double invocation          | register     | jsonl | {"process":1,"type":"invoke","f":"write","value":1}\\n{"process":1,"type":"invoke","f":"write","value":2} | :2: process 1 invokes again while its invocation at line 1 is still open
        cas value of wrong shape   | cas-register | jsonl | {"process":1,"type":"invoke","f":"cas","value":[1]}\\n{"process":1,"type":"ok","f":"cas","value":[1]} | :1: operation cas [1] (process 1, function cas) does not fit model cas-register; expected cas value [old new], found [1]
        missing type field         | register     | jsonl | {"process":1,"f":"write","value":1} | :1: field type is missing; expected invoke, ok, fail or info
        bad type                   | register     | jsonl | {"process":1,"type":"done","f":"write","value":1} | :1: field type is "done"; expected invoke, ok, fail or info
        bad json                   | register     | jsonl | {"process":1,"type":"invoke",,} | :1: invalid JSON at column
        wrong function for model   | register     | jsonl | {"process":1,"type":"invoke","f":"cas","value":[1,2]} | :1: operation cas [1 2] (process 1, function cas) does not fit model register; expected function read or write for model register
        completion function differs| register     | jsonl | {"process":1,"type":"invoke","f":"write","value":1}\\n{"process":1,"type":"ok","f":"read","value":1} | :2: completion :f :read does not match the invocation's :f :write at line 1
        time not an integer        | register     | jsonl | {"process":1,"type":"invoke","f":"write","value":1,"time":"soon"} | :1: field time is "soon"; expected an integer time in nanoseconds
        edn unterminated vector    | register     | knossos-edn | [{:process 1 :type :invoke :f :write :value 1}\\n{:process 1 :type :ok :f :write :value 1} | :1: unterminated collection opened here; expected ']'
        edn map without value      | register     | knossos-edn | [{:process 1 :type :invoke :f :write :value 1}\\n {:process 1 :type}] | :2: map key :type has no value
        edn process not a number   | register     | knossos-edn | [{:process 1.5 :type :invoke :f :write :value 1}] | :1: field :process is 1.5; expected an integer, string or keyword process id
        kv without key             | kv           | kv-log | {:process 0, :type :invoke, :f :append, :value "x"}\\n{:process 0, :type :ok, :f :append, :value "x"} | :1: operation append "x" (process 0, function append) does not fit model kv; expected a :key on every kv operation
        kv append of a number      | kv           | kv-log | {:process 0, :type :invoke, :f :append, :key "a", :value 3}\\n{:process 0, :type :ok, :f :append, :key "a", :value 3} | :1: operation append ["a"] 3 (process 0, function append) does not fit model kv; expected append value a string, found 3
        map without key            | map          | jsonl | {"process":0,"type":"invoke","f":"get"}\\n{"process":0,"type":"ok","f":"get","value":null} | :1: operation get (process 0, function get) does not fit model map; expected a :key on every map operation, found none on :get
        map put of nil             | map          | jsonl | {"process":0,"type":"invoke","f":"put","key":"a","value":null}\\n{"process":0,"type":"ok","f":"put","key":"a","value":null} | :1: operation put ["a"] (process 0, function put) does not fit model map; expected put value a value (absence is written by delete), found nil
        map cas result of wrong shape | map       | jsonl | {"process":0,"type":"invoke","f":"cas","key":"a","value":[null,"x"]}\\n{"process":0,"type":"ok","f":"cas","key":"a","value":["ok",null]} | :1: operation cas ["a"] [nil "x"] (process 0, function cas) does not fit model map; expected cas result [true previous], [false current], true or false, found ["ok" nil]
        map append                 | map          | jsonl | {"process":0,"type":"invoke","f":"append","key":"a","value":"x"}\\n{"process":0,"type":"ok","f":"append","key":"a","value":"x"} | :1: operation append ["a"] "x" (process 0, function append) does not fit model map; expected function get, put, update, delete or cas for model map, found :append
        jepsen bad type            | cas-register | jepsen-log | INFO  jepsen.util - 2\\t:invoke\\t:read\\tnil\\nINFO  jepsen.util - 2\\t:done\\t:read\\t3 | :2: type ':done'; expected :invoke, :ok, :fail or :info
        jepsen bad value           | cas-register | jepsen-log | INFO  jepsen.util - 2\\t:invoke\\t:cas\\t[1 2 | :1: unterminated collection opened here; expected ']'
        counter non-integer add    | counter      | jsonl | {"process":1,"type":"invoke","f":"add","value":"x"}\\n{"process":1,"type":"ok","f":"add","value":"x"} | :1: operation add "x" (process 1, function add) does not fit model counter; expected add value an integer, found "x"
        two objects on a line      | register     | jsonl | {"process":1,"type":"invoke","f":"write","value":1} {"process":1,"type":"ok","f":"write","value":1} | :1: a second JSON object on the same line; expected one JSON object per line
        undetectable format        | register     |       | hello world | :1: cannot detect the history format
        """)
    void shouldRejectMalformedInputWithExitSixtyFiveAndAPreciseMessage(String name, String model, String format,
                                                                     String text, String expected) throws Exception {
        Path p = tmp.resolve("h.txt");
        Files.writeString(p, text.replace("\\n", "\n").replace("\\t", "\t"));
        TestSupport.Run r = format == null
                ? TestSupport.cli("--model", model, p.toString())
                : TestSupport.cli("--model", model, "--format", format, p.toString());
        assertEquals(65, r.exitCode(), name + ": " + r.err());
        assertTrue(r.err().contains(p + expected.strip()), name + ": expected <" + p + expected.strip()
                + "> in <" + r.err() + ">");
        assertEquals(p + "\tmalformed" + System.lineSeparator(), r.out());
    }
}
