//go:build callgrind && cgo && linux

package callgrind

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

var sink uint64

func work(n int) {
	x := uint64(1)
	for i := 0; i < n; i++ {
		x = x*6364136223846793005 + 1442695040888963407
	}
	sink ^= x
}

// TestCountUnderValgrind runs itself under callgrind (`go test -tags callgrind` needs valgrind) and
// checks that a count is repeatable to a small fraction and proportional to the work.
func TestCountUnderValgrind(t *testing.T) {
	if !running() {
		vg, err := exec.LookPath("valgrind")
		if err != nil {
			t.Fatalf("the callgrind build tag needs valgrind on the PATH: %v", err)
		}
		out := filepath.Join(t.TempDir(), "callgrind.out")
		cmd := exec.Command(vg, "--tool=callgrind", "--collect-atstart=no", "--callgrind-out-file="+out, "-q",
			os.Args[0], "-test.run", "^TestCountUnderValgrind$", "-test.v")
		cmd.Env = ChildEnv(os.Environ(), out) // what dbbench run --instructions gives its run
		b, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(b), "counts:") {
			t.Fatalf("under valgrind: %v\n%s", err, b)
		}
		t.Logf("%s", b)
		return
	}
	c, err := New()
	if err != nil {
		t.Fatal(err)
	}
	var n [3]int64
	for i, iters := range []int{1_000_000, 1_000_000, 2_000_000} {
		if n[i], err = c.Count(fmt.Sprintf("work-%d", i), func() { work(iters) }); err != nil {
			t.Fatal(err)
		}
	}
	fmt.Printf("counts: %v\n", n)
	if d := float64(n[1]-n[0]) / float64(n[0]); d > 0.001 || d < -0.001 {
		t.Errorf("the same work counted %d and %d instructions", n[0], n[1])
	}
	if r := float64(n[2]) / float64(n[0]); r < 1.95 || r > 2.05 {
		t.Errorf("twice the work counted %.3fx the instructions (%d vs %d)", r, n[2], n[0])
	}
}
