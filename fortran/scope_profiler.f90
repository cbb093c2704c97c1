! scope_profiler.f90 - `use scope_profiler`: the ScopeProf C API in Fortran's
! idiom, bind(C) over libscopeprof. Trailing blanks of names and paths are
! not part of them (the C side trims them).
module scope_profiler
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_size_t
  implicit none
  private
  public :: sp_init, sp_region, sp_region_at, sp_begin, sp_end, sp_finalize
  public :: sp_pause, sp_resume

  interface
    ! The recording calls bind straight to the C functions, so the hot path
    ! has no Fortran wrapper. Ids are default integers (c_int).
    subroutine sp_begin(id) bind(C, name="sp_begin")
      import :: c_int
      integer(c_int), value, intent(in) :: id
    end subroutine sp_begin

    subroutine sp_end(id) bind(C, name="sp_end")
      import :: c_int
      integer(c_int), value, intent(in) :: id
    end subroutine sp_end

    function c_init(prefix, n) bind(C, name="sp__f_init") result(r)
      import :: c_char, c_size_t, c_int
      character(kind=c_char), intent(in) :: prefix(*)
      integer(c_size_t), value, intent(in) :: n
      integer(c_int) :: r
    end function c_init

    function c_region_at(name, nlen, file, flen, line) &
        bind(C, name="sp__f_region_at") result(r)
      import :: c_char, c_size_t, c_int
      character(kind=c_char), intent(in) :: name(*), file(*)
      integer(c_size_t), value, intent(in) :: nlen, flen
      integer(c_int), value, intent(in) :: line
      integer(c_int) :: r
    end function c_region_at

    function c_finalize() bind(C, name="sp_finalize") result(r)
      import :: c_int
      integer(c_int) :: r
    end function c_finalize

    function c_pause() bind(C, name="sp_pause") result(r)
      import :: c_int
      integer(c_int) :: r
    end function c_pause

    function c_resume() bind(C, name="sp_resume") result(r)
      import :: c_int
      integer(c_int) :: r
    end function c_resume
  end interface

contains

  !> Sets the output prefix (optional: the runtime starts itself).
  !> ierr: 0, or a negative SP_E* code of the C API.
  subroutine sp_init(prefix, ierr)
    character(len=*), intent(in), optional :: prefix
    integer, intent(out), optional :: ierr
    integer(c_int) :: r
    if (present(prefix)) then
      r = c_init(prefix, int(len(prefix), c_size_t))
    else
      r = c_init(' ', 0_c_size_t)
    end if
    if (present(ierr)) ierr = int(r)
  end subroutine sp_init

  !> The id (>= 0) of the region called name, or a negative SP_E* code of
  !> the C API (-1, SP_EINVAL, for a blank name; -6, SP_ELIMIT, past the
  !> region limit; -2, SP_ENOMEM).
  function sp_region(name) result(id)
    character(len=*), intent(in) :: name
    integer :: id
    id = int(c_region_at(name, int(len(name), c_size_t), ' ', 0_c_size_t, &
                         -1_c_int))
  end function sp_region

  !> As sp_region, attaching file:line the first time the name is seen;
  !> returns as sp_region.
  function sp_region_at(name, file, line) result(id)
    character(len=*), intent(in) :: name, file
    integer, intent(in) :: line
    integer :: id
    id = int(c_region_at(name, int(len(name), c_size_t), file, &
                         int(len(file), c_size_t), int(line, c_int)))
  end function sp_region_at

  !> Writes this rank's file; ierr: 0 on success (also when called twice).
  subroutine sp_finalize(ierr)
    integer, intent(out), optional :: ierr
    integer(c_int) :: r
    r = c_finalize()
    if (present(ierr)) ierr = int(r)
  end subroutine sp_finalize

  !> Stops recording in every thread until the matching sp_resume (nests).
  !> ierr: 0, or a negative SP_E* code (SP_EDISABLED, SP_EFINALIZED).
  subroutine sp_pause(ierr)
    integer, intent(out), optional :: ierr
    integer(c_int) :: r
    r = c_pause()
    if (present(ierr)) ierr = int(r)
  end subroutine sp_pause

  !> Ends one sp_pause; ierr: 0, or SP_EINVAL (-1) when no pause is open.
  subroutine sp_resume(ierr)
    integer, intent(out), optional :: ierr
    integer(c_int) :: r
    r = c_resume()
    if (present(ierr)) ierr = int(r)
  end subroutine sp_resume

end module scope_profiler
