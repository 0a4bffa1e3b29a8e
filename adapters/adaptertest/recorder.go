package adaptertest

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
)

// Recorder is a testing.TB that records failures instead of failing the test, so that a check of
// the kit can be run against a broken target and be seen to fail (the kit's own tests, and an
// adapter's tests of targets that must fail a check).
type Recorder struct {
	testing.TB
	mu       sync.Mutex
	failures []string
	skipped  bool
	cleanups []func()
}

// Record runs check with a Recorder, on a goroutine of its own (Fatal and Skip end it), then the
// check's cleanups, last first, as a test's would run.
func Record(t testing.TB, check func(testing.TB)) *Recorder {
	r := &Recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			for i := len(r.cleanups) - 1; i >= 0; i-- {
				r.cleanups[i]()
			}
		}()
		check(r)
	}()
	<-done
	return r
}

// Failures are the failures recorded, in order.
func (r *Recorder) Failures() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.failures...)
}

func (r *Recorder) fail(msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, msg)
}

func (r *Recorder) Helper()                   {}
func (r *Recorder) Error(args ...any)         { r.fail(fmt.Sprint(args...)) }
func (r *Recorder) Errorf(f string, a ...any) { r.fail(fmt.Sprintf(f, a...)) }
func (r *Recorder) Fail()                     { r.fail("Fail") }
func (r *Recorder) FailNow()                  { r.fail("FailNow"); runtime.Goexit() }
func (r *Recorder) Fatal(args ...any)         { r.fail(fmt.Sprint(args...)); runtime.Goexit() }
func (r *Recorder) Fatalf(f string, a ...any) { r.fail(fmt.Sprintf(f, a...)); runtime.Goexit() }
func (r *Recorder) Skip(args ...any)          { r.SkipNow() }
func (r *Recorder) Skipf(f string, a ...any)  { r.SkipNow() }
func (r *Recorder) SkipNow()                  { r.skipped = true; runtime.Goexit() }
func (r *Recorder) Skipped() bool             { return r.skipped }
func (r *Recorder) Cleanup(f func())          { r.cleanups = append(r.cleanups, f) }

func (r *Recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.failures) > 0
}
