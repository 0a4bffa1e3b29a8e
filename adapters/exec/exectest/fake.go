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
	Missing     = "missing"      // leaves out the checksum
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

func run(b, at string) int {
	if b == ExitStart {
		fmt.Fprintln(os.Stderr, "fake: exiting at start-up")
		return 1
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 64<<20)
	out := bufio.NewWriter(os.Stdout)
	reply := func(m map[string]any) {
		j, _ := json.Marshal(m)
		out.Write(append(j, '\n'))
		out.Flush()
	}
	var ds *dataset.Persons
	for in.Scan() {
		var r request
		if err := json.Unmarshal(in.Bytes(), &r); err != nil {
			reply(map[string]any{"id": 0, "error": "not a JSON request"})
			continue
		}
		start := time.Now()
		m := map[string]any{"id": r.ID}
		broken := b != OK && r.Op == at
		if broken {
			switch b {
			case ExitMid:
				return 3
			case Hang:
				time.Sleep(time.Hour)
			case NonJSON:
				fmt.Fprintln(out, "loading the store...")
				out.Flush()
				continue
			case WrongID:
				m["id"] = r.ID + 1
			case ErrorReply:
				reply(map[string]any{"id": r.ID, "error": "the fake fails " + r.Op})
				continue
			case Huge:
				m["pad"] = strings.Repeat("x", 65<<20)
			}
		}
		switch r.Op {
		case "hello":
			if r.Protocol != 1 && b != NoVersionOK {
				reply(map[string]any{"id": r.ID, "error": fmt.Sprintf("protocol %d is not spoken here", r.Protocol)})
				continue
			}
			m["protocol"] = 1
			if broken && b == Version {
				m["protocol"] = 2
			}
			for k, v := range map[string]string{"client": "fake", "client_version": "1", "language": "Go",
				"runtime": "go", "library": "dataset", "library_version": "1"} {
				m[k] = v
			}
			m["workloads"] = []string{"scan", "lookup", "insert", "concurrent", "echo"}
			m["options"] = []string{"flavour", "password"}
		case "open":
			var err error
			if ds, err = dataset.ReadFile(r.Dataset); err != nil {
				reply(map[string]any{"id": r.ID, "error": err.Error()})
				continue
			}
			m["info"] = map[string]any{"options": r.Options}
			m["scans_in_key_order"] = true
		case "load":
			m["rows"] = ds.Len()
			m["elapsed_ns"] = time.Since(start).Nanoseconds()
		case "ping", "close":
		case "scan":
			tally(m, r.Rows, ds.SumSortedPrefix(r.Rows))
			m["elapsed_ns"] = time.Since(start).Nanoseconds()
		case "insert":
			tally(m, r.Rows, ds.SumFirst(r.Rows))
			m["elapsed_ns"] = time.Since(start).Nanoseconds()
		case "lookup":
			lat := perOp(len(r.Keys))
			tally(m, len(r.Keys), ds.SumOf(r.Keys))
			m["latencies_ns"] = lat
		case "run":
			keys := make([]int32, r.Ops)
			for i := range keys {
				keys[i] = int32(i % ds.Len())
			}
			lat := perOp(r.Ops)
			tally(m, r.Ops, ds.SumOf(keys))
			m["latencies_ns"] = lat
		case "concurrent":
			var rs []map[string]any
			for i := 0; i < r.Readers; i++ {
				x := map[string]any{}
				tally(x, r.Rows, ds.SumSortedPrefix(r.Rows))
				x["elapsed_ns"] = time.Since(start).Nanoseconds()
				rs = append(rs, x)
			}
			m["readers"] = rs
			m["wall_ns"] = time.Since(start).Nanoseconds()
		default:
			reply(map[string]any{"id": r.ID, "error": "unknown op " + r.Op})
			continue
		}
		if broken {
			breakReply(b, m)
		}
		reply(m)
		if broken && b == ExitAfter {
			return 0
		}
	}
	if b == IgnoreEOF {
		time.Sleep(time.Hour)
	}
	return 0
}

func tally(m map[string]any, rows int, sum uint64) {
	m["rows"], m["checksum"] = rows, fmt.Sprintf("%016x", sum)
}

// perOp returns n small latencies (the fake does no work worth timing one by one).
func perOp(n int) []int64 {
	lat := make([]int64, n)
	for i := range lat {
		lat[i] = 1
	}
	return lat
}

// breakReply spoils a correct reply the way behaviour b says.
func breakReply(b string, m map[string]any) {
	switch b {
	case Missing:
		delete(m, "checksum")
		delete(m, "scans_in_key_order")
		delete(m, "library")
	case Checksum:
		m["checksum"] = fmt.Sprintf("%016x", uint64(12345))
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
