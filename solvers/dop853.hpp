// Dormand & Prince's explicit Runge–Kutta method of order 8 with embedded error estimators of
// orders 5 and 3 and a dense output of order 7: DOP853 of Hairer, Nørsett & Wanner, Solving
// Ordinary Differential Equations I (2nd ed., Springer 1993), §II.5 (method), §II.6 (dense
// output), with the coefficients and the step-size control of Hairer's published dop853.f.
//
// Why here: with α = 0 and little damping the realized constraint is an undamped (or weakly
// damped) spring of frequency ω = √(γN w) (w = |∇f|²_{A⁻¹}), and its normal oscillation is the
// motion itself: every period must be followed, so the cost grows like √N whatever the method.
// What a method changes is the constant. The L-stable Rosenbrock method of the stiff phases has
// order 4 and needs far more steps per period at rtol 1e-12 than this order-8 pair
// (tests/test_dop853.cpp holds the difference; docs/internals.md has the counts). Its dense output
// keeps the event location of every other phase. A symplectic or trigonometric method would suit
// the undamped spring alone, but the motion is a nonlinear, non-conservative system with switching
// forces in general, and the events need a dense output of matching accuracy.
//
// Stage vectors are allocated once (at initialize) and reused.
#pragma once

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <boost/numeric/odeint/util/odeint_error.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace crbench {

class Dop853Dense {
 public:
  // `atol` holds one absolute tolerance per component.
  Dop853Dense(Eigen::VectorXd atol, double rtol, double max_dt)
      : atol_(std::move(atol)), rtol_(rtol), max_dt_(max_dt) {}

  // Starts at (t0, y0) with the trial step dt0. The first do_step evaluates the derivative there.
  void initialize(const Eigen::VectorXd& y0, double t0, double dt0) {
    const Eigen::Index n = y0.size();
    y_ = y0;
    t_ = t0;
    dt_ = dt0;
    for (auto& k : k_) k.resize(n);
    for (auto& c : cont_) c.resize(n);
    y_stage_.resize(n);
    y_new_.resize(n);
    y_stage12_.resize(n);
    deriv_initialized_ = false;
    last_rejected_ = false;
    stiff_count_ = 0;
    nonstiff_count_ = 0;
  }

  // Rhs: void (double t, const Eigen::VectorXd& y, Eigen::VectorXd& dydt), dydt already sized.
  template <class Rhs>
  std::pair<double, double> do_step(Rhs&& rhs) {
    if (!deriv_initialized_) {
      rhs(t_, y_, k_[0]);
      deriv_initialized_ = true;
    }
    for (int attempt = 0; attempt < 500; ++attempt) {
      if (try_step(rhs)) return {t_old_, t_};
    }
    throw boost::numeric::odeint::step_adjustment_error(
        "dop853: 500 rejected steps in a row (step size adjustment failed)");
  }

  // The dense output of order 7 on [t_old, t] (Hairer, Nørsett & Wanner §II.6, dop853.f CONTD8).
  void calc_state(double t, Eigen::VectorXd& out) const {
    const double s = (t - t_old_) / (t_ - t_old_);
    const double s1 = 1.0 - s;
    out = cont_[0] +
          s * (cont_[1] +
               s1 * (cont_[2] +
                     s * (cont_[3] +
                          s1 * (cont_[4] + s * (cont_[5] + s1 * (cont_[6] + s * cont_[7]))))));
  }
  Eigen::VectorXd calc_state(double t) const {
    Eigen::VectorXd out;
    calc_state(t, out);
    return out;
  }

  // Hairer's stiffness test (dop853.f, IASTI/NONSTI): h·ρ, with ρ ≈ the spectral radius of ∂f/∂y
  // estimated from the last two stages at t + h, above 6.1 (the boundary of the method's
  // stability region) on 15 accepted steps without 6 in a row below it. The step is then set by
  // stability, not accuracy: a damped oscillation has died out and an L-stable method should take
  // over.
  bool stability_bound() const { return stiff_count_ >= 15; }

  double current_time() const { return t_; }
  double step_size() const { return dt_; }
  const Eigen::VectorXd& current_state() const { return y_; }
  long attempts() const { return attempts_; }
  long rejected() const { return rejected_; }

 private:
  // Nodes c_i, stages a_ij, weights b_i, the error weights (bhh: the order-3 estimator, er: the
  // order-5 one) and the dense-output weights d_ij: dop853.f (Hairer & Wanner), to 30 digits.
  static constexpr double c2 = 0.526001519587677318785587544488e-01,
                          c3 = 0.789002279381515978178381316732e-01,
                          c4 = 0.118350341907227396726757197510e+00,
                          c5 = 0.281649658092772603273242802490e+00,
                          c6 = 0.333333333333333333333333333333e+00, c7 = 0.25e+00,
                          c8 = 0.307692307692307692307692307692e+00,
                          c9 = 0.651282051282051282051282051282e+00, c10 = 0.6e+00,
                          c11 = 0.857142857142857142857142857142e+00, c14 = 0.1e+00, c15 = 0.2e+00,
                          c16 = 0.777777777777777777777777777778e+00;
  static constexpr double b1 = 5.42937341165687622380535766363e-2,
                          b6 = 4.45031289275240888144113950566e0,
                          b7 = 1.89151789931450038304281599044e0,
                          b8 = -5.8012039600105847814672114227e0,
                          b9 = 3.1116436695781989440891606237e-1,
                          b10 = -1.52160949662516078556178806805e-1,
                          b11 = 2.01365400804030348374776537501e-1,
                          b12 = 4.47106157277725905176885569043e-2;
  static constexpr double bhh1 = 0.244094488188976377952755905512e+00,
                          bhh2 = 0.733846688281611857341361741547e+00,
                          bhh3 = 0.220588235294117647058823529412e-01;
  static constexpr double er1 = 0.1312004499419488073250102996e-01,
                          er6 = -0.1225156446376204440720569753e+01,
                          er7 = -0.4957589496572501915214079952e+00,
                          er8 = 0.1664377182454986536961530415e+01,
                          er9 = -0.3503288487499736816886487290e+00,
                          er10 = 0.3341791187130174790297318841e+00,
                          er11 = 0.8192320648511571246570742613e-01,
                          er12 = -0.2235530786388629525884427845e-01;
  static constexpr double a21 = 5.26001519587677318785587544488e-2,
                          a31 = 1.97250569845378994544595329183e-2,
                          a32 = 5.91751709536136983633785987549e-2,
                          a41 = 2.95875854768068491816892993775e-2,
                          a43 = 8.87627564304205475450678981324e-2,
                          a51 = 2.41365134159266685502369798665e-1,
                          a53 = -8.84549479328286085344864962717e-1,
                          a54 = 9.24834003261792003115737966543e-1,
                          a61 = 3.7037037037037037037037037037e-2,
                          a64 = 1.70828608729473871279604482173e-1,
                          a65 = 1.25467687566822425016691814123e-1, a71 = 3.7109375e-2,
                          a74 = 1.70252211019544039314978060272e-1,
                          a75 = 6.02165389804559606850219397283e-2, a76 = -1.7578125e-2;
  static constexpr double a81 = 3.70920001185047927108779319836e-2,
                          a84 = 1.70383925712239993810214054705e-1,
                          a85 = 1.07262030446373284651809199168e-1,
                          a86 = -1.53194377486244017527936158236e-2,
                          a87 = 8.27378916381402288758473766002e-3,
                          a91 = 6.24110958716075717114429577812e-1,
                          a94 = -3.36089262944694129406857109825e0,
                          a95 = -8.68219346841726006818189891453e-1,
                          a96 = 2.75920996994467083049415600797e1,
                          a97 = 2.01540675504778934086186788979e1,
                          a98 = -4.34898841810699588477366255144e1,
                          a101 = 4.77662536438264365890433908527e-1,
                          a104 = -2.48811461997166764192642586468e0,
                          a105 = -5.90290826836842996371446475743e-1,
                          a106 = 2.12300514481811942347288949897e1,
                          a107 = 1.52792336328824235832596922938e1,
                          a108 = -3.32882109689848629194453265587e1,
                          a109 = -2.03312017085086261358222928593e-2;
  static constexpr double a111 = -9.3714243008598732571704021658e-1,
                          a114 = 5.18637242884406370830023853209e0,
                          a115 = 1.09143734899672957818500254654e0,
                          a116 = -8.14978701074692612513997267357e0,
                          a117 = -1.85200656599969598641566180701e1,
                          a118 = 2.27394870993505042818970056734e1,
                          a119 = 2.49360555267965238987089396762e0,
                          a1110 = -3.0467644718982195003823669022e0,
                          a121 = 2.27331014751653820792359768449e0,
                          a124 = -1.05344954667372501984066689879e1,
                          a125 = -2.00087205822486249909675718444e0,
                          a126 = -1.79589318631187989172765950534e1,
                          a127 = 2.79488845294199600508499808837e1,
                          a128 = -2.85899827713502369474065508674e0,
                          a129 = -8.87285693353062954433549289258e0,
                          a1210 = 1.23605671757943030647266201528e1,
                          a1211 = 6.43392746015763530355970484046e-1;
  static constexpr double a141 = 5.61675022830479523392909219681e-2,
                          a147 = 2.53500210216624811088794765333e-1,
                          a148 = -2.46239037470802489917441475441e-1,
                          a149 = -1.24191423263816360469010140626e-1,
                          a1410 = 1.5329179827876569731206322685e-1,
                          a1411 = 8.20105229563468988491666602057e-3,
                          a1412 = 7.56789766054569976138603589584e-3, a1413 = -8.298e-3;
  static constexpr double a151 = 3.18346481635021405060768473261e-2,
                          a156 = 2.83009096723667755288322961402e-2,
                          a157 = 5.35419883074385676223797384372e-2,
                          a158 = -5.49237485713909884646569340306e-2,
                          a1511 = -1.08347328697249322858509316994e-4,
                          a1512 = 3.82571090835658412954920192323e-4,
                          a1513 = -3.40465008687404560802977114492e-4,
                          a1514 = 1.41312443674632500278074618366e-1,
                          a161 = -4.28896301583791923408573538692e-1,
                          a166 = -4.69762141536116384314449447206e0,
                          a167 = 7.68342119606259904184240953878e0,
                          a168 = 4.06898981839711007970213554331e0,
                          a169 = 3.56727187455281109270669543021e-1,
                          a1613 = -1.39902416515901462129418009734e-3,
                          a1614 = 2.9475147891527723389556272149e0,
                          a1615 = -9.15095847217987001081870187138e0;
  static constexpr double d41 = -0.84289382761090128651353491142e+01,
                          d46 = 0.56671495351937776962531783590e+00,
                          d47 = -0.30689499459498916912797304727e+01,
                          d48 = 0.23846676565120698287728149680e+01,
                          d49 = 0.21170345824450282767155149946e+01,
                          d410 = -0.87139158377797299206789907490e+00,
                          d411 = 0.22404374302607882758541771650e+01,
                          d412 = 0.63157877876946881815570249290e+00,
                          d413 = -0.88990336451333310820698117400e-01,
                          d414 = 0.18148505520854727256656404962e+02,
                          d415 = -0.91946323924783554000451984436e+01,
                          d416 = -0.44360363875948939664310572000e+01;
  static constexpr double d51 = 0.10427508642579134603413151009e+02,
                          d56 = 0.24228349177525818288430175319e+03,
                          d57 = 0.16520045171727028198505394887e+03,
                          d58 = -0.37454675472269020279518312152e+03,
                          d59 = -0.22113666853125306036270938578e+02,
                          d510 = 0.77334326684722638389603898808e+01,
                          d511 = -0.30674084731089398182061213626e+02,
                          d512 = -0.93321305264302278729567221706e+01,
                          d513 = 0.15697238121770843886131091075e+02,
                          d514 = -0.31139403219565177677282850411e+02,
                          d515 = -0.93529243588444783865713862664e+01,
                          d516 = 0.35816841486394083752465898540e+02;
  static constexpr double d61 = 0.19985053242002433820987653617e+02,
                          d66 = -0.38703730874935176555105901742e+03,
                          d67 = -0.18917813819516756882830838328e+03,
                          d68 = 0.52780815920542364900561016686e+03,
                          d69 = -0.11573902539959630126141871134e+02,
                          d610 = 0.68812326946963000169666922661e+01,
                          d611 = -0.10006050966910838403183860980e+01,
                          d612 = 0.77771377980534432092869265740e+00,
                          d613 = -0.27782057523535084065932004339e+01,
                          d614 = -0.60196695231264120758267380846e+02,
                          d615 = 0.84320405506677161018159903784e+02,
                          d616 = 0.11992291136182789328035130030e+02;
  static constexpr double d71 = -0.25693933462703749003312586129e+02,
                          d76 = -0.15418974869023643374053993627e+03,
                          d77 = -0.23152937917604549567536039109e+03,
                          d78 = 0.35763911791061412378285349910e+03,
                          d79 = 0.93405324183624310003907691704e+02,
                          d710 = -0.37458323136451633156875139351e+02,
                          d711 = 0.10409964950896230045147246184e+03,
                          d712 = 0.29840293426660503123344363579e+02,
                          d713 = -0.43533456590011143754432175058e+02,
                          d714 = 0.96324553959188282948394950600e+02,
                          d715 = -0.39177261675615439165231486172e+02,
                          d716 = -0.14972683625798562581422125276e+03;

  // Stage k_i = f(t + c_i h, y + h Σ_j a_ij k_j), numbered as in the method: k_[0] = k1, …,
  // k_[11] = k12, k_[12] = f at the new point (k1 of the next step), k_[13..15] = the dense
  // output's stages 14–16.
  template <class Rhs>
  bool try_step(Rhs& rhs) {
    if (max_dt_ > 0.0 && dt_ > max_dt_) dt_ = max_dt_;
    const double h = dt_;
    const double t = t_;
    if (!(h > 0.0) || t + h == t) {
      throw boost::numeric::odeint::step_adjustment_error("dop853: step size underflow at t = " +
                                                          std::to_string(t));
    }
    ++attempts_;
    auto& k = k_;
    const Eigen::VectorXd& y = y_;
    const auto stage = [&](int i, double c, const auto& increment) {
      y_stage_ = y + h * increment;
      rhs(t + c * h, y_stage_, k[static_cast<std::size_t>(i - 1)]);
    };
    stage(2, c2, a21 * k[0]);
    stage(3, c3, a31 * k[0] + a32 * k[1]);
    stage(4, c4, a41 * k[0] + a43 * k[2]);
    stage(5, c5, a51 * k[0] + a53 * k[2] + a54 * k[3]);
    stage(6, c6, a61 * k[0] + a64 * k[3] + a65 * k[4]);
    stage(7, c7, a71 * k[0] + a74 * k[3] + a75 * k[4] + a76 * k[5]);
    stage(8, c8, a81 * k[0] + a84 * k[3] + a85 * k[4] + a86 * k[5] + a87 * k[6]);
    stage(9, c9, a91 * k[0] + a94 * k[3] + a95 * k[4] + a96 * k[5] + a97 * k[6] + a98 * k[7]);
    stage(10, c10,
          a101 * k[0] + a104 * k[3] + a105 * k[4] + a106 * k[5] + a107 * k[6] + a108 * k[7] +
              a109 * k[8]);
    stage(11, c11,
          a111 * k[0] + a114 * k[3] + a115 * k[4] + a116 * k[5] + a117 * k[6] + a118 * k[7] +
              a119 * k[8] + a1110 * k[9]);
    stage(12, 1.0,
          a121 * k[0] + a124 * k[3] + a125 * k[4] + a126 * k[5] + a127 * k[6] + a128 * k[7] +
              a129 * k[8] + a1210 * k[9] + a1211 * k[10]);
    y_stage12_ = y_stage_;
    // The order-8 increment, and the two error estimates of dop853.f: the order-5 one (er) and the
    // order-3 one (bhh), combined as err5²/√(err5² + 0.01 err3²) so that the order-3 estimate only
    // guards against an accidentally small order-5 one.
    y_stage_ = b1 * k[0] + b6 * k[5] + b7 * k[6] + b8 * k[7] + b9 * k[8] + b10 * k[9] +
               b11 * k[10] + b12 * k[11];
    y_new_ = y + h * y_stage_;
    double err5 = 0.0, err3 = 0.0;
    for (Eigen::Index i = 0; i < y.size(); ++i) {
      const double sk = atol_(i) + rtol_ * std::max(std::abs(y(i)), std::abs(y_new_(i)));
      const double e3 = y_stage_(i) - bhh1 * k[0](i) - bhh2 * k[8](i) - bhh3 * k[11](i);
      const double e5 = er1 * k[0](i) + er6 * k[5](i) + er7 * k[6](i) + er8 * k[7](i) +
                        er9 * k[8](i) + er10 * k[9](i) + er11 * k[10](i) + er12 * k[11](i);
      err3 += (e3 / sk) * (e3 / sk);
      err5 += (e5 / sk) * (e5 / sk);
    }
    double denominator = err5 + 0.01 * err3;
    if (!(denominator > 0.0)) denominator = 1.0;
    double err = h * err5 / std::sqrt(static_cast<double>(y.size()) * denominator);
    if (!std::isfinite(err)) err = 1e10;

    // dop853.f's controller: h_new = h / clamp(err^(1/8) / 0.9, 1/6, 3), no growth after a
    // rejection.
    constexpr double safe = 0.9, fac_min = 1.0 / 6.0, fac_max = 1.0 / 0.333;
    const double fac = std::clamp(std::pow(err, 0.125) / safe, fac_min, fac_max);
    if (err > 1.0) {
      dt_ = h / std::min(fac_max, fac);
      last_rejected_ = true;
      ++rejected_;
      return false;
    }
    rhs(t + h, y_new_, k[12]);
    const double stiffness_denominator = (y_new_ - y_stage12_).squaredNorm();
    if (stiffness_denominator > 0.0) {
      const double h_rho = h * std::sqrt((k[12] - k[11]).squaredNorm() / stiffness_denominator);
      if (h_rho > 6.1) {
        nonstiff_count_ = 0;
        ++stiff_count_;
      } else if (++nonstiff_count_ == 6) {
        stiff_count_ = 0;
      }
    }
    prepare_dense(rhs, h);
    std::swap(k[0], k[12]);
    t_old_ = t;
    t_ = t + h;
    y_ = y_new_;
    double dt_new = h / fac;
    if (last_rejected_) dt_new = std::min(dt_new, h);
    dt_ = max_dt_ > 0.0 ? std::min(max_dt_, dt_new) : dt_new;
    last_rejected_ = false;
    return true;
  }

  // The three extra stages and the coefficients of the order-7 interpolant (dop853.f after
  // label 45); y_ is still the step's start.
  template <class Rhs>
  void prepare_dense(Rhs& rhs, double h) {
    auto& k = k_;
    const double t = t_;
    const Eigen::VectorXd& y = y_;
    cont_[0] = y;
    cont_[1] = y_new_ - y;
    cont_[2] = h * k[0] - cont_[1];
    cont_[3] = cont_[1] - h * k[12] - cont_[2];
    y_stage_ = y + h * (a141 * k[0] + a147 * k[6] + a148 * k[7] + a149 * k[8] + a1410 * k[9] +
                        a1411 * k[10] + a1412 * k[11] + a1413 * k[12]);
    rhs(t + c14 * h, y_stage_, k[13]);
    y_stage_ = y + h * (a151 * k[0] + a156 * k[5] + a157 * k[6] + a158 * k[7] + a1511 * k[10] +
                        a1512 * k[11] + a1513 * k[12] + a1514 * k[13]);
    rhs(t + c15 * h, y_stage_, k[14]);
    y_stage_ = y + h * (a161 * k[0] + a166 * k[5] + a167 * k[6] + a168 * k[7] + a169 * k[8] +
                        a1613 * k[12] + a1614 * k[13] + a1615 * k[14]);
    rhs(t + c16 * h, y_stage_, k[15]);
    cont_[4] = h * (d41 * k[0] + d46 * k[5] + d47 * k[6] + d48 * k[7] + d49 * k[8] + d410 * k[9] +
                    d411 * k[10] + d412 * k[11] + d413 * k[12] + d414 * k[13] + d415 * k[14] +
                    d416 * k[15]);
    cont_[5] = h * (d51 * k[0] + d56 * k[5] + d57 * k[6] + d58 * k[7] + d59 * k[8] + d510 * k[9] +
                    d511 * k[10] + d512 * k[11] + d513 * k[12] + d514 * k[13] + d515 * k[14] +
                    d516 * k[15]);
    cont_[6] = h * (d61 * k[0] + d66 * k[5] + d67 * k[6] + d68 * k[7] + d69 * k[8] + d610 * k[9] +
                    d611 * k[10] + d612 * k[11] + d613 * k[12] + d614 * k[13] + d615 * k[14] +
                    d616 * k[15]);
    cont_[7] = h * (d71 * k[0] + d76 * k[5] + d77 * k[6] + d78 * k[7] + d79 * k[8] + d710 * k[9] +
                    d711 * k[10] + d712 * k[11] + d713 * k[12] + d714 * k[13] + d715 * k[14] +
                    d716 * k[15]);
  }

  Eigen::VectorXd atol_;
  double rtol_, max_dt_;
  Eigen::VectorXd y_, y_stage_, y_new_, y_stage12_;
  std::array<Eigen::VectorXd, 16> k_;
  std::array<Eigen::VectorXd, 8> cont_;
  double t_ = 0.0, t_old_ = 0.0, dt_ = 0.0;
  bool last_rejected_ = false;
  bool deriv_initialized_ = false;
  int stiff_count_ = 0, nonstiff_count_ = 0;
  long attempts_ = 0, rejected_ = 0;
};

}  // namespace crbench
