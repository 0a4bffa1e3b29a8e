package compare

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/dbbench/dbbench/report"
)

// checkBaseline refuses an OLD side that cannot serve as a baseline: a run whose verdict is error (it
// stopped early, or a target failed) or a result of it that failed. Its figures are not a measure of
// the code it ran, so nothing compared with them would mean anything, whatever NEW did.
func (c *comparer) checkBaseline() error {
	for i, r := range c.olds {
		name := c.runName(c.opts.OldFiles, i)
		for _, x := range r.Results {
			if x.Status == report.StatusOK {
				continue
			}
			msg := x.Error
			if msg == "" {
				msg = "status " + string(x.Status)
			}
			sweep := ""
			if len(r.Run.Sizes) > 1 {
				sweep = fmt.Sprintf("@%d", x.Size)
			}
			return fmt.Errorf("%s %s: %s %s%s failed (%s): a baseline whose own results failed is refused; measure it again",
				c.oldName, name, x.Target, x.Workload, sweep, msg)
		}
		if r.Verdict == report.VerdictError {
			why := "a target or workload failed, or the run stopped early"
			if len(r.Run.Errors) > 0 {
				why = r.Run.Errors[0]
			}
			return fmt.Errorf("%s %s: its verdict is error (%s): a baseline that erred is refused; measure it again",
				c.oldName, name, why)
		}
	}
	return nil
}

// runName names report i of a side in messages: its file, or "run N".
func (c *comparer) runName(files []string, i int) string {
	if i < len(files) && files[i] != "" {
		return files[i]
	}
	return fmt.Sprintf("run %d", i+1)
}

// checkMachines refuses a side whose runs come from different machine classes: its runs would not
// be samples of one thing.
func (c *comparer) checkMachines() error {
	for _, side := range []struct {
		name  string
		files []string
		runs  []*report.Report
	}{{c.oldName, c.opts.OldFiles, c.olds}, {c.newName, c.opts.NewFiles, c.news}} {
		first := side.runs[0].Environment.MachineClass()
		for i, r := range side.runs[1:] {
			if mc := r.Environment.MachineClass(); mc != first {
				return fmt.Errorf("%s: its runs come from different machine classes (%s: %s; %s: %s): a side's runs must share one",
					side.name, c.runName(side.files, 0), first, c.runName(side.files, i+1), mc)
			}
		}
	}
	return nil
}

// undecidable records that nothing is decided when the two sides ran on different machine classes
// (CPU model and core count): a ratio to an in-run baseline cancels a machine's speed but not its
// microarchitecture (on an AMD EPYC, lmdb-go's scans read 14-19% "better" than the same code's on
// an Intel Xeon, and a real 10% slowdown read as 8-10% better). Every figure is still shown; no row
// is better or worse, no gated figure passes or fails. --force does not lift it.
func (c *comparer) undecidable() {
	oc, nc := c.out.Old.MachineClass, c.out.New.MachineClass
	if oc == nc {
		return
	}
	c.out.Undecidable = fmt.Sprintf("different machine classes (%s: %s; %s: %s): nothing is decided across machine classes, "+
		"normalized or not (a ratio to an in-run baseline cancels a machine's speed, not its microarchitecture); "+
		"measure the baseline on a machine of the same class, or alongside", c.oldName, oc, c.newName, nc)
	for i := range c.out.Rows {
		c.out.Rows[i].Verdict, c.out.Rows[i].Reason = OtherMachines, "the sides ran on different machine classes"
	}
}

// MachineSlug turns a machine class ("Intel(R) Xeon(R) Processor, 2 cores") into a directory name
// ("intel-xeon-processor-2-cores"): lower case, trademark signs dropped, every other run of characters
// but letters and digits one dash. The gate keeps a committed baseline per class under it
// (baselines/gate/SLUG/).
func MachineSlug(class string) string {
	s := strings.ToLower(class)
	for _, tm := range []string{"(r)", "(tm)", "(c)", "®", "™"} {
		s = strings.ReplaceAll(s, tm, " ")
	}
	s = nonSlug.ReplaceAllString(s, "-")
	s = strings.Trim(s, "-")
	if s == "" {
		return "unknown"
	}
	return s
}

var nonSlug = regexp.MustCompile(`[^a-z0-9]+`)
