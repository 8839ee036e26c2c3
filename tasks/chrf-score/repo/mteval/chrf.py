"""chrF and chrF++ (Popovic, WMT 2015 and WMT 2017): character and word
n-gram F-scores for machine translation evaluation."""
