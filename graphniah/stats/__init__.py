"""Statistics for GraphNIAH reports: intervals, exact random baselines, hypothesis tests, power.

- ``intervals``     Wilson intervals of accuracy cells (``PAPER_Z`` reproduces the paper's), the
                    bootstrap mean of per-example scores
- ``chance``        each task's answer set and the exact accuracy of a uniform guess (appendix D)
- ``significance``  Fisher, χ², exact McNemar, Wilcoxon, sums of binomials, Holm's correction
- ``counting``      how counting answers miss the truth (Table 15)
- ``paired``        several conditions on the same examples: Cochran's Q, pairwise McNemar with Holm,
                    the spread of accuracies with its bootstrap interval, Kendall's τ of rankings
- ``power``         exact power and sample sizes of Fisher's and McNemar's tests (``graphniah power``)
- ``checks``        argument checks shared by the modules, scipy imported on first use

Every function reproduces a quantity the method paper prints (appendices D and E); the tests in
``tests/stats/`` (a test module per module) check it against those printed numbers and against
statsmodels/scipy. The package imports no stage. The names in ``__all__`` load on first
access (module ``__getattr__``), so importing the package costs nothing; a new module adds its
names to the map below.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphniah.lazy import attribute

if TYPE_CHECKING:
    from graphniah.stats.chance import (
        PAPER_TASKS,
        AnswerSpace,
        CountingAnswers,
        ListAnswers,
        MultipleChoiceAnswers,
        YesNoAnswers,
        mixture_baseline,
        random_baseline,
        uniform_mixture_baseline,
    )
    from graphniah.stats.counting import CountingOutcomes, counting_outcomes
    from graphniah.stats.intervals import BOOTSTRAP_RESAMPLES, PAPER_Z, Interval, Mean, Proportion, bootstrap_mean, proportion, wilson_interval
    from graphniah.stats.paired import (
        PairedComparison,
        Spread,
        accuracy_spread,
        cochran_q,
        kendall_tau,
        pairwise_mcnemar_holm,
        ranking_agreement,
    )
    from graphniah.stats.power import (
        SampleSize,
        fisher_detectable_difference,
        fisher_normal_n,
        fisher_power,
        fisher_sample_size,
        mcnemar_detectable_difference,
        mcnemar_normal_n,
        mcnemar_power,
        mcnemar_sample_size,
    )
    from graphniah.stats.significance import (
        HypothesisTest,
        PairwiseComparison,
        binomial_sum_tail,
        binomial_sum_tails,
        chi2_test,
        fisher_exact,
        format_pvalue,
        holm,
        mcnemar_exact,
        pairwise_fisher_holm,
        wilcoxon_signed_rank,
    )

# Where each public name lives; loaded on first access.
_HOMES = {
    **dict.fromkeys(["PAPER_TASKS", "AnswerSpace", "CountingAnswers", "ListAnswers", "MultipleChoiceAnswers", "YesNoAnswers",
                     "mixture_baseline", "random_baseline", "uniform_mixture_baseline"], "graphniah.stats.chance"),
    **dict.fromkeys(["CountingOutcomes", "counting_outcomes"], "graphniah.stats.counting"),
    **dict.fromkeys(["PairedComparison", "Spread", "accuracy_spread", "cochran_q", "kendall_tau", "pairwise_mcnemar_holm",
                     "ranking_agreement"], "graphniah.stats.paired"),
    **dict.fromkeys(["BOOTSTRAP_RESAMPLES", "PAPER_Z", "Interval", "Mean", "Proportion", "bootstrap_mean", "proportion",
                     "wilson_interval"], "graphniah.stats.intervals"),
    **dict.fromkeys(["SampleSize", "fisher_detectable_difference", "fisher_normal_n", "fisher_power", "fisher_sample_size",
                     "mcnemar_detectable_difference", "mcnemar_normal_n", "mcnemar_power", "mcnemar_sample_size"],
                    "graphniah.stats.power"),
    **dict.fromkeys(["HypothesisTest", "PairwiseComparison", "binomial_sum_tail", "binomial_sum_tails", "chi2_test", "fisher_exact",
                     "format_pvalue", "holm", "mcnemar_exact", "pairwise_fisher_holm", "wilcoxon_signed_rank"],
                    "graphniah.stats.significance"),
}

__all__ = [*_HOMES]  # the public names are the map's keys


def __getattr__(name: str) -> Any:
    return attribute(__name__, _HOMES, name)
