! heat_kernel.f90 - the compute kernel of heat2d, in a module. Its
! procedures are instrumented by -finstrument-functions (route 2, named
! heat_kernel::...), and the boundary loop by the Fortran API (route 3).
module heat_kernel
  use, intrinsic :: iso_c_binding, only: c_int, c_double
  use scope_profiler
  implicit none
  private
  public :: heat_step, heat_init, heat_max
  integer, save :: boundary_region = -1

contains

  !> Initial condition: a hot square in the middle of the global grid.
  subroutine heat_init(rows, ny, first_row, nx, u) bind(C, name="heat_init")
    integer(c_int), value, intent(in) :: rows, ny, first_row, nx
    real(c_double), intent(inout) :: u(ny, 0:rows + 1)
    integer :: i, j, gi
    u = 0.0_c_double
    do i = 1, rows
      gi = first_row + i - 1
      do j = 1, ny
        if (abs(gi - nx / 2) < nx / 8 .and. abs(j - ny / 2) < ny / 8) then
          u(j, i) = 100.0_c_double
        end if
      end do
    end do
  end subroutine heat_init

  !> One explicit step on the interior; returns sum |unew - u|.
  function heat_step(rows, ny, u, unew, alpha) result(change) &
      bind(C, name="heat_step")
    integer(c_int), value, intent(in) :: rows, ny
    real(c_double), intent(in) :: u(ny, 0:rows + 1)
    real(c_double), intent(inout) :: unew(ny, 0:rows + 1)
    real(c_double), value, intent(in) :: alpha
    real(c_double) :: change
    integer :: i
    change = 0.0_c_double
    do i = 1, rows
      change = change + update_row(ny, u(:, i - 1), u(:, i), u(:, i + 1), &
                                   unew(:, i), alpha)
    end do
    call fixed_boundary(rows, ny, unew)
  end function heat_step

  !> The five-point stencil on one row.
  function update_row(ny, above, here, below, out, alpha) result(change)
    integer(c_int), intent(in) :: ny
    real(c_double), intent(in) :: above(ny), here(ny), below(ny)
    real(c_double), intent(out) :: out(ny)
    real(c_double), intent(in) :: alpha
    real(c_double) :: change
    integer :: j
    change = 0.0_c_double
    out(1) = here(1)
    out(ny) = here(ny)
    do j = 2, ny - 1
      out(j) = here(j) + alpha * (above(j) + below(j) + here(j - 1) + &
                                  here(j + 1) - 4.0_c_double * here(j))
      change = change + abs(out(j) - here(j))
    end do
  end function update_row

  !> Zero the left and right columns: a region by hand, from Fortran.
  subroutine fixed_boundary(rows, ny, u)
    integer(c_int), intent(in) :: rows, ny
    real(c_double), intent(inout) :: u(ny, 0:rows + 1)
    if (boundary_region < 0) then
      boundary_region = sp_region_at("fixed_boundary_loop", "heat_kernel.f90", 72)
    end if
    call sp_begin(boundary_region)
    u(1, 1:rows) = 0.0_c_double
    u(ny, 1:rows) = 0.0_c_double
    call sp_end(boundary_region)
  end subroutine fixed_boundary

  !> The hottest point of the interior rows.
  function heat_max(rows, ny, u) result(hottest) bind(C, name="heat_max")
    integer(c_int), value, intent(in) :: rows, ny
    real(c_double), intent(in) :: u(ny, 0:rows + 1)
    real(c_double) :: hottest
    hottest = maxval(u(:, 1:rows))
  end function heat_max

end module heat_kernel
