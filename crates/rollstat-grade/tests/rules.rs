//! One test per grading rule.

use rollstat_grade::{
    canonical_key, cluster_answers, extract_answer, grade, is_equivalent, ExtractMode, Grader,
    PercentPolicy, Reason,
};

fn eq(a: &str, b: &str) -> bool {
    is_equivalent(a, b).equal
}

#[track_caller]
fn yes(a: &str, b: &str) {
    let v = is_equivalent(a, b);
    assert!(v.equal, "expected {a:?} == {b:?}, got {v:?}");
}

#[track_caller]
fn no(a: &str, b: &str) {
    let v = is_equivalent(a, b);
    assert!(!v.equal, "expected {a:?} != {b:?}, got {v:?}");
}

fn math(s: &str) -> Option<String> {
    extract_answer(s, &ExtractMode::Math)
}

fn mcq(s: &str) -> Option<String> {
    extract_answer(s, &ExtractMode::Mcq)
}

// ---------------------------------------------------------------- extraction

#[test]
fn extract_last_boxed_with_nested_braces() {
    assert_eq!(
        math("first \\boxed{1} then \\boxed{\\frac{1}{2}}").as_deref(),
        Some("\\frac{1}{2}")
    );
    assert_eq!(
        math("x = \\boxed{\\sqrt{\\frac{a}{b}}}.").as_deref(),
        Some("\\sqrt{\\frac{a}{b}}")
    );
    assert_eq!(math("\\fbox{42}").as_deref(), Some("42"));
    assert_eq!(math("so it is \\boxed 5 indeed").as_deref(), Some("5"));
    assert_eq!(math("unterminated \\boxed{3").as_deref(), Some("3"));
}

#[test]
fn extract_joins_adjacent_boxes() {
    assert_eq!(math("$\\boxed{1}\\boxed{2}$").as_deref(), Some("1, 2"));
    assert_eq!(
        math("\\boxed{(2, 2)} \\quad \\text{and} \\quad \\boxed{(6, 2)}").as_deref(),
        Some("(2, 2), (6, 2)")
    );
    assert_eq!(
        math("\\boxed{1} no no no no no \\boxed{2}").as_deref(),
        Some("2")
    );
}

#[test]
fn extract_final_answer_phrases() {
    assert_eq!(
        math("Final Answer: The final answer is $\\frac{3}{4}$. I hope it is correct.").as_deref(),
        Some("\\frac{3}{4}")
    );
    assert_eq!(math("Answer: 17").as_deref(), Some("17"));
    assert_eq!(math("Thus the answer is 12.").as_deref(), Some("12"));
    assert_eq!(
        math("Final Answer: The volume of $ABCD$ is 120.").as_deref(),
        Some("120")
    );
    // "final answer is" after the last box wins (Minerva format)
    assert_eq!(
        math("so $x = \\boxed{200}$ ... Final Answer: The final answer is $10,455$. I hope it is correct.")
            .as_deref(),
        Some("10,455")
    );
}

#[test]
fn extract_latex_delimiters() {
    assert_eq!(
        math("we get $x^2$ and finally \\(7\\)").as_deref(),
        Some("7")
    );
    assert_eq!(
        math("so \\[ \\frac{1}{2} \\]").as_deref(),
        Some("\\frac{1}{2}")
    );
    assert_eq!(math("values $1$ and $2$").as_deref(), Some("1, 2"));
    assert_eq!(math("a loss of $28$ %").as_deref(), Some("28%"));
}

#[test]
fn extract_markdown_bold_and_plain_numbers() {
    assert_eq!(math("The result is **73**").as_deref(), Some("73"));
    assert_eq!(
        extract_answer("costs $1,234.50 in total", &ExtractMode::Number).as_deref(),
        Some("1234.50")
    );
    assert_eq!(
        extract_answer("I get 3 then 4, so 5.", &ExtractMode::Number).as_deref(),
        Some("5")
    );
    assert_eq!(extract_answer("AZYUK2A", &ExtractMode::Number), None);
    assert_eq!(extract_answer("nothing", &ExtractMode::Number), None);
    assert_eq!(extract_answer("", &ExtractMode::Math), None);
    assert_eq!(math("#### 18").as_deref(), Some("18"));
}

#[test]
fn extract_mcq_letters() {
    assert_eq!(mcq("The answer is (C).").as_deref(), Some("C"));
    assert_eq!(mcq("Answer: C").as_deref(), Some("C"));
    assert_eq!(mcq("**Answer:** D").as_deref(), Some("D"));
    assert_eq!(mcq("so \\boxed{C}").as_deref(), Some("C"));
    assert_eq!(mcq("so \\boxed{\\text{(B)}}").as_deref(), Some("B"));
    assert_eq!(mcq("The answer is C").as_deref(), Some("C"));
    assert_eq!(mcq("I think the answer is (c)").as_deref(), Some("C"));
    assert_eq!(mcq("Answer: $A$").as_deref(), Some("A"));
    assert_eq!(mcq("B").as_deref(), Some("B"));
    // letters in prose are not a stated choice (issue #10 item 18)
    assert_eq!(mcq("Options (A) and (B) fail; only (D) works"), None);
    assert_eq!(
        mcq("Options (A) and (B) fail.\nSo we pick (D).").as_deref(),
        Some("D")
    );
    assert_eq!(mcq("ANSWER: None of the above"), None);
    assert_eq!(mcq("The answer is I think (B)").as_deref(), Some("B"));
    assert_eq!(mcq("The answer is I.").as_deref(), Some("I"));
    assert_eq!(mcq("I have no idea"), None);
}

#[test]
fn extract_regex_mode() {
    let m: ExtractMode = "regex:#### (\\-?[0-9\\.\\,]+)".parse().unwrap();
    assert_eq!(extract_answer("#### 5\n#### 7", &m).as_deref(), Some("7"));
    let m: ExtractMode = "regex:[0-9]+".parse().unwrap();
    assert_eq!(extract_answer("a 1 b 22", &m).as_deref(), Some("22"));
    assert_eq!(extract_answer("none", &m), None);
    assert!("regex:(".parse::<ExtractMode>().is_err());
    assert!("MATH".parse::<ExtractMode>().is_ok());
}

// ---------------------------------------------------------------- numbers

#[test]
fn integers_decimals_and_separators() {
    yes("1000", "1,000");
    yes("7425000", "7,425,000");
    yes("1000", "1 000");
    yes("1000", "1000.0");
    yes("0.4", ".4");
    yes("4", "004");
    yes("1000.99", "1000,99");
    yes("11111111100", "11,\\! 111,\\! 111,\\! 100");
    yes("14916", "14{,}916");
    no("32349", "32, 349");
    no("1, 2", "12");
    yes("-5", "-5");
    no("5", "-5");
}

#[test]
fn scientific_notation() {
    yes("1.5E3", "1500");
    yes("1.5\\times10^{3}", "1500");
    yes("3 \\cdot 10^{-2}", "0.03");
}

#[test]
fn fractions_and_mixed_numbers() {
    yes("\\frac{1}{2}", "0.5");
    yes("\\dfrac{1}{2}", "1/2");
    yes("\\tfrac{3}{4}", "0.75");
    yes("\\frac12", "\\frac{1}{2}");
    yes("\\frac3{3}", "1");
    yes("-10/9", "-\\frac{10}{9}");
    yes("2\\frac{1}{2}", "5/2");
    yes("-3\\frac12", "-7/2");
    yes("4 4/9", "\\frac{40}{9}");
    yes("-4 4/9", "-40/9");
    no("1 2", "12");
    no("\\frac{1}{2004!}", "\\frac{1}{2006!}");
    no("\\frac{1}{2^{99}}", "\\frac{1}{2^{98}}");
    assert_eq!(
        is_equivalent("\\frac{2}{4}", "0.5").reason,
        Reason::ExactRational
    );
}

#[test]
fn decimals_rounding_policy() {
    yes("\\frac{1}{12}", "0.0833333333333333");
    yes("\\frac{70}{9}", "7.78");
    yes("\\frac{1}{3}", "0.33");
    no("\\frac{1}{3}", "0.3"); // one decimal is not enough
    no("5", "4.99");
    yes("\\sqrt{17}", "4.123105625617661");
    assert_eq!(
        is_equivalent("\\frac{70}{9}", "7.78").reason,
        Reason::Rounding
    );
    let strict = Grader {
        rounding: false,
        ..Grader::default()
    };
    assert!(!strict.is_equivalent("\\frac{70}{9}", "7.78").equal);
}

#[test]
fn percentages_policy() {
    yes("28\\%", "28 percent");
    yes("28\\%", "28 %");
    yes("28\\%", "28");
    no("28\\%", "0.28");
    let frac = Grader {
        percent: PercentPolicy::Fraction,
        ..Grader::default()
    };
    assert!(frac.is_equivalent("28\\%", "0.28").equal);
    assert!(!frac.is_equivalent("28\\%", "28").equal);
    let either = Grader {
        percent: PercentPolicy::Either,
        ..Grader::default()
    };
    assert!(either.is_equivalent("28\\%", "0.28").equal);
    assert!(either.is_equivalent("28\\%", "28").equal);
}

#[test]
fn radicals_pi_e_powers() {
    yes("\\sqrt{8}", "2\\sqrt{2}");
    yes("\\sqrt3", "\\sqrt{3}");
    yes("\\frac{\\sqrt{3}}{3}", "\\frac{1}{\\sqrt{3}}");
    yes("\\sqrt[3]{8}", "2");
    no("4", "4\\sqrt{2}");
    no("1\\sqrt{19}", "1");
    yes("\\frac{9}{4}\\pi", "\\frac94\\pi");
    yes("2\\pi", "\\pi \\cdot 2");
    yes("e^{2}", "e \\cdot e");
    yes("2^{10}", "1024");
    yes("10\\sqrt{3} + \\sqrt4", "10\\sqrt3 + \\sqrt{4}");
}

#[test]
fn radicals_canonical_form() {
    assert_eq!(
        is_equivalent("\\sqrt{8}", "2\\sqrt{2}").reason,
        Reason::ExactRadical
    );
    assert_eq!(
        is_equivalent("\\frac{1}{\\sqrt{3}}", "\\frac{\\sqrt3}{3}").reason,
        Reason::ExactRadical
    );
    yes("\\sqrt{2}+\\sqrt{3}", "\\sqrt{3}+\\sqrt{2}");
    yes("(1+\\sqrt2)^2", "3+2\\sqrt2");
    yes("\\sqrt{12} \\cdot \\sqrt{3}", "6");
    yes("\\frac{5\\sqrt{42}}{27}", "\\frac{10\\sqrt{10.5}}{27}");
    no("\\sqrt{2}", "\\sqrt{3}");
    no("1+\\sqrt{2}", "1-\\sqrt{2}");
    assert_eq!(
        is_equivalent("\\sqrt{2}", "\\sqrt{3}").reason,
        Reason::Different
    );
    assert_eq!(
        canonical_key("\\frac{\\sqrt{8}}{2}"),
        canonical_key("\\sqrt2")
    );
    assert!(canonical_key("\\sqrt2").starts_with("r:"));
}

#[test]
fn left_right_cdot_times() {
    yes("\\left( \\frac{1}{3} \\right)", "1/3");
    yes("3 \\cdot 4", "12");
    yes("3 \\times 4", "12");
    yes("\\left(x-2\\right)\\left(x+2\\right)", "(x-2)(x+2)");
}

#[test]
fn units_text_and_degrees() {
    yes("10\\text{ units}", "10");
    yes("125 miles", "125");
    yes("15\\mbox{ cm}^2", "15");
    yes("0.06 \\text{ yuan}", "0.06");
    yes("\\frac{1}{3} \\textbf{meters}", "1/3");
    yes("90^\\circ", "90");
    yes("90^{\\circ}", "90");
    yes("\\$10", "10");
    yes("\\text{Evelyn}", "Evelyn");
    yes("\\text{E}", "E");
    no("d", "\\text{E}");
    yes("\\text{(C)}", "\\text{C}");
}

#[test]
fn infinity_intervals_unions_sets() {
    yes("(1, +\\infty)", "(1,\\infty)");
    no("[0,1)", "[0,9)");
    no("(0,9)", "[0,9)");
    yes(
        "[-1, -\\frac{1}{2}) \\cup (1, \\infty)",
        "[-1, -\\tfrac12) \\cup (1, \\infty)",
    );
    yes("(1, 2) \\cup (3, 4)", "(3, 4) \\cup (1, 2)");
    yes("\\{1, 2, 3\\}", "\\{3, 2, 1\\}");
    no("\\{1, 2\\}", "\\{1, 2, 3\\}");
    yes("\\emptyset", "\\varnothing");
    yes("-793 < a < 10", "(-793, 10)");
    yes("x > 5", "(5, \\infty)");
}

#[test]
fn tuples_and_lists() {
    yes("(1, 2)", "(1,2)");
    no("(1, 2)", "(2, 1)");
    yes("(1, \\frac{9}{2})", "(1, 4.5)");
    // a bare list against a set gold: order-insensitive
    yes("\\{1, 2\\}", "2, 1");
    yes("1, 2", "2, 1");
    yes("(1, 3)", "\\{1, 3\\}");
    no("(3, 1)", "\\{1, 3\\}");
    yes("(2,1),(1,2)", "(1, 2), (2, 1)");
    yes("6 \\text{ and } 8", "6, 8");
    yes("\\pm 2021", "\\{-2021, 2021\\}");
    no("\\pm 2021", "2021");
    yes("1 \\pm \\sqrt{19}", "1+\\sqrt{19}, 1-\\sqrt{19}");
}

#[test]
fn matrices() {
    yes(
        "\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}",
        "\\begin{bmatrix}1 & 2 \\\\ 3 & 4\\end{bmatrix}",
    );
    no(
        "\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}",
        "\\begin{pmatrix}1 & 2 \\\\ 3 & 5\\end{pmatrix}",
    );
    yes(
        "\\begin{pmatrix}6 & 8 \\\\ 10 & 12\\end{pmatrix}",
        "\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix} + \\begin{pmatrix}5 & 6 \\\\ 7 & 8\\end{pmatrix}",
    );
    yes(
        "\\begin{pmatrix}\\frac{1}{2} \\\\ 1\\end{pmatrix}",
        "\\left[\\begin{array}{c}0.5 \\\\ 1\\end{array}\\right]",
    );
}

#[test]
fn equations_and_relations() {
    yes("x = 3", "3");
    yes("3", "x = 3");
    yes("k=1", "1");
    no("7 = 11a+c", "11a+c");
    no("2x + z = 1", "1");
    yes("x = 11", "x = 5+5+1 = 7 = 11");
    yes("1/3", "x=1/3\\approx1.3");
    yes("x \\geq 5", "5 \\leq x");
    yes("x < 1", "-x > -1");
    no("x < 1", "x > -1");
    no("x \\geq 5", "x \\leq 5");
    yes("2x+4y-3=0", "y=-\\frac{1}{2}x+\\frac{3}{4}");
    no("5x - 7y + 11z + 4 = 0", "x + y - z + 2 = 0");
    yes("(p,q)=(3,2)", "(3,2)");
    yes("AB=4,CD=5", "4, 5");
    yes("-2 \\le x \\le 7", "x \\in [-2,7]");
    no("x \\in [-2,7]", "-2 \\le x \\le 7");
    let lenient = Grader {
        allow_set_relation_comp: true,
        ..Grader::default()
    };
    assert!(
        lenient
            .is_equivalent("x \\in [-2,7]", "-2 \\le x \\le 7")
            .equal
    );
}

#[test]
fn expressions_with_variables() {
    yes("\\frac{x+2}{7}", "\\frac{x}{7}+\\frac{2}{7}");
    yes("\\tan^2(y)+1", "\\sec^2(y)");
    yes("(x+1)^2", "x^2+2x+1");
    no("|x|", "x");
    no("\\sqrt{x^2}", "x");
    yes("\\sqrt{x^2}", "|x|");
    no("\\sqrt{x}", "\\sqrt{-x}");
    no("x+2n+1", "x+1");
    no("(a+5)(b+2)", "(+5)(b+2)");
    no("x^2", "y^2");
    yes("2 \\sin b \\cos a", "2\\cos(a)\\sin(b)");
    assert_eq!(
        is_equivalent("(x+1)^2", "x^2+2x+1").reason,
        Reason::Identity
    );
}

#[test]
fn ratios_and_text() {
    yes("7:32", "7:32");
    no("12:00", "1:00");
    yes("\\text{odd}", "odd");
    no("\\text{even}", "\\text{odd}");
}

#[test]
fn nesting_within_limits_parses() {
    let deep = format!("{}1{}", "{".repeat(30), "}".repeat(30));
    yes(&deep, "1");
    let deep = format!("{}2{}", "\\sqrt{".repeat(20), "}".repeat(20));
    assert!(is_equivalent(&deep, &deep.clone()).equal);
    let too_deep = format!("{}1{}", "(".repeat(500), ")".repeat(500));
    assert_eq!(is_equivalent(&too_deep, "2").reason, Reason::LimitExceeded);
}

#[test]
fn unparseable_is_not_equal() {
    let v = is_equivalent("1/2", "\\frac{");
    assert!(!v.equal);
    assert_eq!(v.reason, Reason::Unparseable);
    assert!(!eq("", ""));
}

// ---------------------------------------------------------------- grade

#[test]
fn grade_uses_answer_or_extraction() {
    let g = grade(Some("so \\boxed{4}"), None, "4", &ExtractMode::Math);
    assert_eq!(g.answer.as_deref(), Some("4"));
    assert!(g.correct);
    let g = grade(Some("so \\boxed{4}"), Some("5"), "4", &ExtractMode::Math);
    assert_eq!(g.answer.as_deref(), Some("5"));
    assert!(!g.correct);
    let g = grade(None, None, "4", &ExtractMode::Math);
    assert_eq!(g.answer, None);
    assert!(!g.correct);
    let g = grade(Some("Answer: (C)"), None, "(C)", &ExtractMode::Mcq);
    assert!(g.correct);
    let g = grade(Some("Answer: B"), None, "C", &ExtractMode::Mcq);
    assert!(!g.correct);
    let g = grade(Some("\\boxed{\\text{C}}"), None, "C", &ExtractMode::Math);
    assert!(g.correct);
    let g = grade(None, Some("None"), "0", &ExtractMode::Number);
    assert_eq!(g.answer, None);
}

// ---------------------------------------------------------------- clustering

#[test]
fn cluster_equivalent_numbers() {
    let ids = cluster_answers(&[Some("0.5"), Some("1/2"), Some("\\frac{1}{2}"), Some("2")]);
    assert_eq!(ids, vec![Some(0), Some(0), Some(0), Some(1)]);
    assert_eq!(
        canonical_key("0.5"),
        canonical_key("\\frac{1}{2}").replace("q:", "d:")
    );
    assert_eq!(canonical_key("1/2"), canonical_key("\\dfrac{1}{2}"));
}

#[test]
fn cluster_junk_never_votes() {
    let ids = cluster_answers(&[
        Some("[invalid]"),
        Some(""),
        Some("None"),
        None,
        Some("  "),
        Some("[invalidanswer]"),
        Some("3"),
    ]);
    assert_eq!(ids, vec![None, None, None, None, None, None, Some(0)]);
    assert_eq!(canonical_key("[invalid]"), "");
}

#[test]
fn cluster_is_transitive_and_deterministic() {
    // 1/3 ~ 0.33 (rounding) and 0.333 ~ 1/3: all three end up together
    // even though 0.33 and 0.333 are not directly equal at 3 decimals.
    let answers = [Some("0.33"), Some("7"), Some("0.333"), Some("\\frac{1}{3}")];
    let ids = cluster_answers(&answers);
    assert_eq!(ids, vec![Some(0), Some(1), Some(0), Some(0)]);
    assert_eq!(cluster_answers(&answers), ids);
    // ids are numbered by first appearance
    let ids = cluster_answers(&[Some("x"), Some("y"), Some("x")]);
    assert_eq!(ids, vec![Some(0), Some(1), Some(0)]);
}

#[test]
fn cluster_symbolic_and_sets() {
    let ids = cluster_answers(&[
        Some("(x+1)^2"),
        Some("x^2+2x+1"),
        Some("\\{1,2\\}"),
        Some("2, 1"),
        Some("x=3"),
        Some("3"),
    ]);
    assert_eq!(
        ids,
        vec![Some(0), Some(0), Some(1), Some(1), Some(2), Some(2)]
    );
}

#[test]
fn cluster_many_answers_is_fast() {
    let owned: Vec<String> = (0..300)
        .map(|i| format!("\\frac{{{}}}{{7}}", i % 150))
        .collect();
    let answers: Vec<Option<&str>> = owned.iter().map(|s| Some(s.as_str())).collect();
    let t = std::time::Instant::now();
    let ids = cluster_answers(&answers);
    assert!(t.elapsed().as_secs_f64() < 5.0);
    assert_eq!(ids[0], ids[150]);
    assert_ne!(ids[0], ids[1]);
}

#[test]
fn dates_compare_as_dates_not_divisions() {
    // as divisions both are 5/2021; as dates they differ
    no("05/01/2021", "10/02/2021");
    no("10/02/2021", "05/01/2021");
    assert_ne!(canonical_key("05/01/2021"), canonical_key("10/02/2021"));
    yes("05/01/2021", "05/01/2021");
    yes("05/01/2021", "5/1/2021");
    yes("$05/01/2021$", "05/01/2021.");
    yes("2021-05-01", "2021-05-01");
    no("2021-05-01", "2021-05-02");
    // a date never equals the value of its division or subtraction
    no("05/01/2021", "5/2021");
    no("5/2021", "05/01/2021");
    no("2021-05-01", "2015");
    // day-first and month-first dates are compared in written order
    no("05/01/2021", "01/05/2021");
    assert_eq!(
        cluster_answers(&[
            Some("05/01/2021"),
            Some("10/02/2021"),
            Some("5/1/2021"),
            Some("[invalid]")
        ]),
        vec![Some(0), Some(1), Some(0), None]
    );
    // fractions with two parts are still numbers
    yes("12/24", "1/2");
    // extraction keeps the whole date
    let r = "Yesterday was 04/30/2021. So the answer is 05/01/2021.\n";
    assert_eq!(math(r).as_deref(), Some("05/01/2021"));
    assert_eq!(
        extract_answer(r, &ExtractMode::Number).as_deref(),
        Some("05/01/2021")
    );
    assert_eq!(
        extract_answer("It was 2021-05-01", &ExtractMode::Number).as_deref(),
        Some("2021-05-01")
    );
    assert!(!grade(Some(r), None, "10/02/2021", &ExtractMode::Math).correct);
    assert!(grade(Some(r), None, "05/01/2021", &ExtractMode::Math).correct);
}

// ------------------------------------------- real-output classes (#10 item 18)

#[test]
fn mcq_statements_in_other_words_and_languages() {
    assert_eq!(mcq("The correct option is B.").as_deref(), Some("B"));
    assert_eq!(mcq("the correct choice is (c)").as_deref(), Some("C"));
    assert_eq!(mcq("The correct option letter is D.").as_deref(), Some("D"));
    assert_eq!(mcq("因此，答案为 B。").as_deref(), Some("B"));
    assert_eq!(mcq("答案：(D)").as_deref(), Some("D"));
    assert_eq!(mcq("由上可知，故选：C").as_deref(), Some("C"));
    assert_eq!(mcq("正确选项是 A。").as_deref(), Some("A"));
    assert_eq!(mcq("We compare them.\n**(C)**").as_deref(), Some("C"));
    // options past J (BIG-Bench-Hard has up to 18)
    assert_eq!(mcq("So the answer is (M).").as_deref(), Some("M"));
}

#[test]
fn mcq_letters_not_stated_as_the_choice() {
    // a statement of a non-letter answer ends the search
    assert_eq!(
        mcq("The answer is (None of the above).\nThe text says (B) is false."),
        None
    );
    assert_eq!(
        mcq("Answer: Unknown. Note det(A + B) != det(A) + det(B)."),
        None
    );
    // two letters offered
    assert_eq!(mcq("So the answer is (A) or (D)."), None);
    // code and prose
    assert_eq!(mcq("label(\"$B$\", rotate(60)*(D));\ndraw(A--B);"), None);
    assert_eq!(mcq("(C) is false since f is odd."), None);
    // a prose "answer is" is skipped, not taken as the end of the search
    assert_eq!(
        mcq("The answer is (B).\nThis answer is consistent with the data.").as_deref(),
        Some("B")
    );
    assert_eq!(
        mcq("Answer: Let's think step by step. ... The answer is (C).").as_deref(),
        Some("C")
    );
}

#[test]
fn hallucinated_follow_up_questions_are_cut() {
    let r = "The answer is (B).\n\nQuestion: What is 2+2?\n(A) 4 (B) 5\nAnswer: The answer is (A).";
    assert_eq!(mcq(r).as_deref(), Some("B"));
    let r = "So she has 18 eggs. The answer is 18.\n\nQ: Tom has 3 cats and buys 4 more.\nA: 3 + 4 = 7. The answer is 7.";
    assert_eq!(math(r).as_deref(), Some("18"));
    assert_eq!(
        extract_answer(r, &ExtractMode::Number).as_deref(),
        Some("18")
    );
    // a question restated at the very start is not a follow-up
    assert_eq!(
        math("Question: what is 3 + 4?\nAnswer: 7").as_deref(),
        Some("7")
    );
}

#[test]
fn stated_value_comes_from_its_own_clause() {
    assert_eq!(
        math("The answer is 250 from a budget of 1,000 dollars.").as_deref(),
        Some("250")
    );
    assert!(
        grade(
            Some("The answer is 10 - 3 = 7 apples"),
            None,
            "7",
            &ExtractMode::Math
        )
        .correct
    );
    // labels are not quantities
    assert_eq!(
        math("so 4 runners finish ahead of runner #9.").as_deref(),
        Some("4")
    );
    assert_eq!(math("#### 18").as_deref(), Some("18"));
    // mixed numbers
    assert_eq!(math("It takes 2 and 2/3 hours.").as_deref(), Some("2 2/3"));
    assert!(
        grade(
            Some("It takes 2 and 2/3 hours."),
            None,
            "8/3",
            &ExtractMode::Math
        )
        .correct
    );
    assert_eq!(math("It takes 1 3/4 cups.").as_deref(), Some("1 3/4"));
    // an earlier statement is used when the last one is prose
    assert_eq!(
        math("The answer is 9.\nThis answer is right because 3 * 3 = 9 and 4 > 2.").as_deref(),
        Some("9")
    );
    assert_eq!(
        extract_answer(
            "The answer is 9. My answer is correct for all 4 cases.",
            &ExtractMode::Number
        )
        .as_deref(),
        Some("9")
    );
    // prose words are not part of a math answer
    assert_eq!(math("so 7").as_deref(), Some("7"));
    assert_eq!(math("thus, it is 12").as_deref(), Some("12"));
    assert_eq!(math("x is 5").as_deref(), Some("5"));
    // commands that spell a short word are math
    assert_eq!(math("x \\to 0").as_deref(), Some("x \\to 0"));
}

#[test]
fn refusals_have_no_answer() {
    assert_eq!(
        math("I'm sorry, but I cannot answer question 2 without the table."),
        None
    );
    assert_eq!(
        math("I cannot determine the value of x from 3 equations."),
        None
    );
    assert_eq!(
        extract_answer("As an AI, I can't see figure 4.", &ExtractMode::Number),
        None
    );
    // an answer statement or a box still counts
    assert_eq!(
        math("I'm sorry for the confusion: the answer is 5.").as_deref(),
        Some("5")
    );
    assert_eq!(
        math("I cannot simplify further, so \\boxed{6}").as_deref(),
        Some("6")
    );
}

#[test]
fn equivalent_repeated_boxes_count_once() {
    assert_eq!(
        math("$\\boxed{\\frac{3}{4}} = \\boxed{0.75}$").as_deref(),
        Some("0.75")
    );
    assert_eq!(math("\\boxed{2} and \\boxed{2}").as_deref(), Some("2"));
    assert_eq!(math("\\boxed{2} and \\boxed{3}").as_deref(), Some("2, 3"));
    // the same for LaTeX spans
    assert_eq!(math("so $12$ and $12$").as_deref(), Some("12"));
    assert_eq!(
        math("The final answer is $12$ or $12.0$").as_deref(),
        Some("12.0")
    );
    assert_eq!(
        math("so $x = 2$ or $x = 3$").as_deref(),
        Some("x = 2, x = 3")
    );
}

#[test]
fn unit_quotients_and_physics_units_are_dropped() {
    yes("12", "12 m/s");
    yes("12", "12 \\text{ m/s}");
    yes("90", "90 km/h");
    yes("9.8", "9.8 \\, \\text{m/s}^2");
    yes("440", "440 Hz");
    yes("2", "2 \\text{ MHz}");
    no("12", "13 m/s");
    // a quotient of variables after a non-number stays algebra
    no("x", "x m/s");
}

#[test]
fn underflowed_values_are_not_zero() {
    no("0", "10^{-100000}");
    no("0", "e^{-100000}");
    no("10^{-100000}", "0");
    yes("10^{-300}", "10^{-300}");
    yes("0", "0 \\cdot 10^{-5}");
}

#[test]
fn long_decimals_match_to_their_printed_precision() {
    // 8 significant digits: relative tolerance 1e-7
    yes("0.78539815", "\\frac{\\pi}{4}");
    yes("3.1415926", "\\pi");
    yes("1.4142135", "\\sqrt{2}");
    no("0.78539", "\\frac{\\pi}{4}"); // 5 digits: must round correctly (0.78540)
    no("0.7853", "\\frac{\\pi}{4}");
    no("0.78549815", "\\frac{\\pi}{4}");
    no("0.34", "\\frac{1}{3}");
    yes("0.33", "\\frac{1}{3}");
}

// Issue 30 item 21: a reasoning model boxes a first attempt, then a
// corrected one. The boxes are two attempts (the last is the answer) when a
// revision word stands between them; adjacent boxes joined by `,` / `and`
// stay one multi-part answer (the Math-Verify cases `\boxed{1} and
// \boxed{-2}`, `\boxed{1} papers and \boxed{2} bins` keep passing in
// agreement.rs).
#[test]
fn corrected_box_is_the_answer() {
    assert_eq!(
        math("so \\boxed{5} ... wait, it's \\boxed{6}").as_deref(),
        Some("6")
    );
    assert_eq!(
        math("\\boxed{5}. Actually, the answer is \\boxed{6}.").as_deref(),
        Some("6")
    );
    assert_eq!(math("\\boxed{5}; no, \\boxed{6}").as_deref(), Some("6"));
    assert_eq!(
        math("\\boxed{5}, but rechecking gives \\boxed{6}").as_deref(),
        Some("6")
    );
    let g = grade(
        Some("The total is \\boxed{5} … wait, it's \\boxed{6}"),
        None,
        "6",
        &ExtractMode::Math,
    );
    assert!(g.correct, "{g:?}");
    // multi-part answers are still joined
    assert_eq!(math("\\boxed{1}, \\boxed{2}").as_deref(), Some("1, 2"));
    assert_eq!(
        math("\\boxed{1} papers and \\boxed{2} bins").as_deref(),
        Some("1, 2")
    );
    assert_eq!(
        math("\\boxed{(3, 3)} \\text{ for part (a) and } \\boxed{(1, 1)}").as_deref(),
        Some("(3, 3), (1, 1)")
    );
}

// Issue 30 item 21: scientific notation with a lowercase e is a number.
#[test]
fn scientific_notation_is_a_number() {
    assert_eq!(
        math("the rate is about 1e-3 per step").as_deref(),
        Some("1e-3")
    );
    assert_eq!(
        extract_answer("so the answer is 2.5e4", &ExtractMode::Number).as_deref(),
        Some("2.5e4")
    );
    yes("1e-3", "0.001");
    yes("1e-3", "\\frac{1}{1000}");
    yes("2.5e4", "25000");
    yes("1.5E5", "150000");
    no("1e-3", "0.01");
    // `2e` alone is still 2·e
    yes("2e", "2 e");
}

// Issue 30 item 21: a choice verb right before the letter states a choice.
#[test]
fn choice_verbs_state_a_letter() {
    assert_eq!(mcq("I choose option D:").as_deref(), Some("D"));
    assert_eq!(mcq("After all that, I'll pick (B).").as_deref(), Some("B"));
    assert_eq!(mcq("So I would go with C.").as_deref(), Some("C"));
    // a verb followed by prose states nothing
    assert_eq!(mcq("I choose to think about it more."), None);
    let g = grade(Some("I choose option D:"), None, "D", &ExtractMode::Mcq);
    assert!(g.correct, "{g:?}");
}
