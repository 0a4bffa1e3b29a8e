// Package exectest is a fake protocol client for tests: a test binary re-executes itself as the
// client, with FakeEnv naming a behaviour, correct or broken in one particular way.
//
//	func TestMain(m *testing.M) { exectest.Main(); os.Exit(m.Run()) }
//
// Every fake first starts a child (sleep 600) in its process group, so that tests can check that
// dbbench ends the whole group. The correct fake answers from the dataset's own sums; it is a fake of
// the protocol, not a store.
package exectest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	osexec "os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/dbbench/dbbench/adapters/exec/protocol"
	"github.com/dbbench/dbbench/dataset"
)

// FakeEnv names the environment variable that selects the behaviour.
const FakeEnv = "DBBENCH_EXECTEST_FAKE"

// Behaviours of the fake client. OK is correct; each other one breaks one rule at the op named in
// BreakAt (default "scan").
const (
	OK          = "ok"
	ExitStart   = "exit-start"   // exits before reading anything
	ExitMid     = "exit-mid"     // exits on receiving the request
	ExitAfter   = "exit-after"   // replies, then exits
	NonJSON     = "non-json"     // prints a log line on stdout
	WrongID     = "wrong-id"     // replies to another id
	Missing     = "missing"      // leaves out the checksum (the last reader's, of concurrent)
	Version     = "version"      // speaks protocol 2
	Checksum    = "checksum"     // a wrong checksum
	Hang        = "hang"         // never replies
	IgnoreEOF   = "ignore-eof"   // does not exit when its input ends
	Huge        = "huge"         // a reply longer than 64 MiB
	Slow        = "slow-elapsed" // reports more time than the round trip
	ErrorReply  = "error"        // replies {"error": ...}
	Negative    = "negative"     // a negative time
	WrongCount  = "wrong-count"  // one latency or reader too few
	NoVersionOK = "no-retry"     // answers an unsupported hello with a reply instead of an error
)

// PGIDLine starts the first line a fake prints on stderr, followed by its process group id, so that
// a test can check the group is gone even when it never got hold of the client.
const PGIDLine = "fake client, process group "

// BreakAtEnv names the op at which a broken fake misbehaves (default scan).
const BreakAtEnv = "DBBENCH_EXECTEST_AT"

// Command is the argv that starts the fake: this test binary, running no tests.
func Command() []string { return []string{os.Args[0], "-test.run=^$"} }

// Env returns the environment entries selecting a behaviour (at the given op, "" for scan).
func Env(behaviour, at string) map[string]any {
	m := map[string]any{FakeEnv: behaviour}
	if at != "" {
		m[BreakAtEnv] = at
	}
	return m
}

// Main runs the fake client and exits when FakeEnv is set; otherwise it returns.
func Main() {
	b, ok := os.LookupEnv(FakeEnv)
	if !ok {
		return
	}
	at := os.Getenv(BreakAtEnv)
	if at == "" {
		at = "scan"
	}
	// A child in our process group, holding our stdout: dbbench must end it too, and must notice our
	// exit although the pipe stays open.
	child := osexec.Command("sleep", "600")
	child.Stdout = os.Stdout
	child.Start()
	fmt.Fprintf(os.Stderr, "%s%d\n", PGIDLine, syscall.Getpgrp())
	os.Exit(run(b, at))
}

// request is what the fake reads of a request. It decodes requests, and writes its replies as maps,
// on its own rather than through package protocol's types: the fake is the other side the exec
// adapter is tested against, and must be free to break any field.
type request struct {
	ID       int64           `json:"id"`
	Op       string          `json:"op"`
	Protocol int             `json:"protocol"`
	Dataset  string          `json:"dataset"`
	Rows     int             `json:"rows"`
	Keys     []int32         `json:"keys"`
	Readers  int             `json:"readers"`
	Ops      int             `json:"ops"`
	Workload string          `json:"workload"`
	Options  json.RawMessage `json:"options"`
}

// fake is one fake client's session.
type fake struct {
	behaviour, at string
	out           *bufio.Writer
	ds            *dataset.Persons // the person file open names
}

func run(b, at string) int {
	if b == ExitStart {
		fmt.Fprintln(os.Stderr, "fake: exiting at start-up")
		return 1
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, protocol.MaxLine)
	f := &fake{behaviour: b, at: at, out: bufio.NewWriter(os.Stdout)}
	for in.Scan() {
		if code, goOn := f.serve(in.Bytes()); !goOn {
			return code
		}
	}
	if b == IgnoreEOF {
		time.Sleep(time.Hour)
	}
	return 0
}

// serve answers one request line, correctly or the way the behaviour breaks it; goOn is false when
// the fake exits here, with code.
func (f *fake) serve(line []byte) (code int, goOn bool) {
	var r request
	if err := json.Unmarshal(line, &r); err != nil {
		f.reply(map[string]any{"id": 0, "error": "not a JSON request"})
		return 0, true
	}
	broken := f.behaviour != OK && r.Op == f.at
	if broken {
		switch f.behaviour {
		case ExitMid:
			return 3, false
		case Hang:
			time.Sleep(time.Hour)
		case NonJSON:
			fmt.Fprintln(f.out, "loading the store...")
			f.out.Flush()
			return 0, true
		case ErrorReply:
			f.reply(map[string]any{"id": r.ID, "error": "the fake fails " + r.Op})
			return 0, true
		}
	}
	m, err := f.answer(r)
	if err != nil {
		f.reply(map[string]any{"id": r.ID, "error": err.Error()})
		return 0, true
	}
	if broken {
		breakReply(f.behaviour, r, m)
	}
	f.reply(m)
	return 0, !broken || f.behaviour != ExitAfter
}

func (f *fake) reply(m map[string]any) {
	j, _ := json.Marshal(m)
	f.out.Write(append(j, '\n'))
	f.out.Flush()
}

// answer is the correct reply to r, from the dataset's own sums.
func (f *fake) answer(r request) (map[string]any, error) {
	start := time.Now()
	m := map[string]any{"id": r.ID}
	switch r.Op {
	case "hello":
		return m, f.hello(r, m)
	case "open":
		var err error
		if f.ds, err = dataset.ReadFile(r.Dataset); err != nil {
			return nil, err
		}
		m["info"] = map[string]any{"options": r.Options}
		m["scans_in_key_order"] = true
	case "load":
		m["rows"] = f.ds.Len()
		m["elapsed_ns"] = time.Since(start).Nanoseconds()
	case "ping", "close":
	case "scan":
		tally(m, r.Rows, f.ds.SumSortedPrefix(r.Rows))
		m["elapsed_ns"] = time.Since(start).Nanoseconds()
	case "insert":
		tally(m, r.Rows, f.ds.SumFirst(r.Rows))
		m["elapsed_ns"] = time.Since(start).Nanoseconds()
	case "lookup":
		tally(m, len(r.Keys), f.ds.SumOf(r.Keys))
		m["latencies_ns"] = perOp(len(r.Keys))
	case "run":
		keys := make([]int32, r.Ops)
		for i := range keys {
			keys[i] = int32(i % f.ds.Len())
		}
		tally(m, r.Ops, f.ds.SumOf(keys))
		m["latencies_ns"] = perOp(r.Ops)
	case "concurrent":
		var rs []map[string]any
		for i := 0; i < r.Readers; i++ {
			x := map[string]any{}
			tally(x, r.Rows, f.ds.SumSortedPrefix(r.Rows))
			x["elapsed_ns"] = time.Since(start).Nanoseconds()
			rs = append(rs, x)
		}
		m["readers"] = rs
		m["wall_ns"] = time.Since(start).Nanoseconds()
	default:
		return nil, fmt.Errorf("unknown op %s", r.Op)
	}
	return m, nil
}

// hello fills the handshake; a version other than 1 is refused, unless the behaviour answers it.
func (f *fake) hello(r request, m map[string]any) error {
	if r.Protocol != 1 && f.behaviour != NoVersionOK {
		return fmt.Errorf("protocol %d is not spoken here", r.Protocol)
	}
	m["protocol"] = 1
	for k, v := range map[string]string{"client": "fake", "client_version": "1", "language": "Go",
		"runtime": "go", "library": "dataset", "library_version": "1"} {
		m[k] = v
	}
	m["workloads"] = []string{"scan", "lookup", "insert", "concurrent", "echo"}
	m["options"] = []string{"flavour", "password"}
	return nil
}

func tally(m map[string]any, rows int, sum uint64) {
	m["rows"], m["checksum"] = rows, protocol.Checksum(sum)
}

// perOp returns n small latencies (the fake does no work worth timing one by one).
func perOp(n int) []int64 {
	lat := make([]int64, n)
	for i := range lat {
		lat[i] = 1
	}
	return lat
}

// breakReply spoils the correct reply m to r the way behaviour b says.
func breakReply(b string, r request, m map[string]any) {
	switch b {
	case WrongID:
		m["id"] = r.ID + 1
	case Huge:
		m["pad"] = strings.Repeat("x", 65<<20)
	case Version:
		if r.Op == "hello" {
			m["protocol"] = 2
		}
	case Missing:
		delete(m, "checksum")
		delete(m, "scans_in_key_order")
		delete(m, "library")
		if r, ok := m["readers"].([]map[string]any); ok && len(r) > 0 {
			delete(r[len(r)-1], "checksum")
		}
	case Checksum:
		m["checksum"] = protocol.Checksum(12345)
	case Slow:
		for _, k := range []string{"elapsed_ns", "wall_ns"} {
			if _, ok := m[k]; ok {
				m[k] = int64(10 * time.Second)
			}
		}
		if l, ok := m["latencies_ns"].([]int64); ok && len(l) > 0 {
			l[0] = int64(10 * time.Second)
		}
	case Negative:
		for _, k := range []string{"elapsed_ns", "wall_ns"} {
			if _, ok := m[k]; ok {
				m[k] = -1
			}
		}
		if l, ok := m["latencies_ns"].([]int64); ok && len(l) > 0 {
			l[0] = -1
		}
	case WrongCount:
		if l, ok := m["latencies_ns"].([]int64); ok && len(l) > 0 {
			m["latencies_ns"] = l[1:]
		}
		if r, ok := m["readers"].([]map[string]any); ok && len(r) > 0 {
			m["readers"] = r[1:]
		}
	}
}
