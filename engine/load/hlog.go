package load

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/dbbench/dbbench/report/hlog"
)

// WriteLog writes the run's time series to an interval log: for each interval, operation type and
// clock, one histogram tagged series/op/clock (a type with no completion in an interval is left
// out of it, and so is a closed loop's start lag, which it does not measure). Each interval is
// interval long, the last one too; from is the run's start from the log's. It is the one writer
// of a run's series (the engine writes every run phase through it).
func (r *Result) WriteLog(w *hlog.Writer, series string, from, interval time.Duration) error {
	clocks := []string{hlog.Response, hlog.Service, hlog.StartLag}
	for _, iv := range r.Intervals {
		for i, c := range iv.Types {
			for k, h := range []*hdrhistogram.PackedHistogram{c.Response, c.Service, c.StartLag} {
				if h == nil {
					continue
				}
				if err := w.Write(hlog.Tag(series, r.Types[i].Name, clocks[k]), from+iv.Start, from+iv.Start+interval, h); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
