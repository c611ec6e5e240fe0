/* The battery's tests, one line each (as registry/module_list.h for
 * modules): each defines `const pb_qtest pb_qtest_<id>` (quality/qtests/qtest.h).
 * Their order is the order of a report's rows. */
PB_QTEST(chisq)
PB_QTEST(mmd)
PB_QTEST(duplicates)
/* Bias metrics (the POV-shuffle README's, docs/pov.md) */
PB_QTEST(positional)
PB_QTEST(position_bins)
PB_QTEST(bigram)
PB_QTEST(trigram)
PB_QTEST(predictor)
