package load

import (
	"time"

	"github.com/dbbench/dbbench/report/hlog"
)

// WriteLog writes the run's time series to an interval log: for each interval, operation type and
// clock, one histogram tagged target/op/clock (a type with no completion in an interval is left out
// of it). Each interval is Config.Interval long, the last one too.
func (r *Result) WriteLog(w *hlog.Writer, target string, interval time.Duration) error {
	for _, iv := range r.Intervals {
		for i, c := range iv.Types {
			if c.Response == nil {
				continue
			}
			name := r.Types[i].Name
			for _, s := range []struct {
				clock string
				h     hlog.Histogram
			}{{hlog.Response, c.Response}, {hlog.Service, c.Service}, {hlog.StartLag, c.StartLag}} {
				if err := w.Write(hlog.Tag(target, name, s.clock), iv.Start, iv.Start+interval, s.h); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
