package engine

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
)

// A run worker (runs.go) shows its progress through the parent: it writes each event as one line on
// its stdout, "event {"kind": ..., "event": {...}}", and the parent hands them to its own Events, so
// that one printer shows every run. The run's start and end are the parent's own events.

// RunStarted: one run of several begins (runs.go). Initial is how many runs the plan makes before
// its first look; a later run has Index above it and Why says which assertions it is to decide.
type RunStarted struct {
	Index, Initial     int
	Why                string
	Workloads, Targets []string
}

func (RunStarted) event() {}

// eventLine is one event on a run worker's stdout.
type eventLine struct {
	Kind  string          `json:"kind"`
	Event json.RawMessage `json:"event"`
}

// WorkerEvents is Runner.Events for a run worker: each event a line on w. Adapters log from their
// own goroutines: the lines are written one at a time.
func WorkerEvents(w io.Writer) func(Event) {
	var mu sync.Mutex
	return func(ev Event) {
		var kind string
		switch ev.(type) {
		case Message:
			kind = "message"
		case Loaded:
			kind = "loaded"
		case Turn:
			kind = "turn"
		case WorkloadDone:
			kind = "done"
		default:
			return // Started and Finished: the parent's own
		}
		b, err := json.Marshal(ev)
		if err != nil {
			return
		}
		line, _ := json.Marshal(eventLine{Kind: kind, Event: b})
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "event %s\n", line)
	}
}

// forwardEvents reads a run worker's event lines until end of file and hands them to emit (nil:
// they are read and dropped). A line that is not an event is shown as a message: nothing a worker
// says is lost.
func forwardEvents(r io.Reader, emit func(Event)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if emit == nil {
			continue
		}
		if ev, ok := decodeEvent(sc.Text()); ok {
			emit(ev)
		} else if text := strings.TrimSpace(sc.Text()); text != "" {
			emit(Message{Source: "worker", Text: text})
		}
	}
}

// decodeEvent reads one event line.
func decodeEvent(line string) (Event, bool) {
	rest, ok := strings.CutPrefix(line, "event ")
	if !ok {
		return nil, false
	}
	var el eventLine
	if json.Unmarshal([]byte(rest), &el) != nil {
		return nil, false
	}
	switch el.Kind {
	case "message":
		return decodeAs[Message](el.Event)
	case "loaded":
		return decodeAs[Loaded](el.Event)
	case "turn":
		return decodeAs[Turn](el.Event)
	case "done":
		return decodeAs[WorkloadDone](el.Event)
	}
	return nil, false
}

// decodeAs decodes an event of kind E.
func decodeAs[E Event](raw json.RawMessage) (Event, bool) {
	var e E
	if json.Unmarshal(raw, &e) != nil {
		return nil, false
	}
	return e, true
}
