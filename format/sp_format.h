/* sp_format.h - every header of the format library at once, for code
 * not yet including the ones it uses (runtime/, mpi/, tests). New code
 * includes the header of what it uses: sp_common.h (errors, UTF-8),
 * sp_rank.h (a rank in memory, metadata, sources), sp_stats.h, sp_spt.h,
 * sp_stream.h, sp_h5.h, sp_inputs.h, sp_tmp.h. Internal. */
#ifndef SP_FORMAT_H
#define SP_FORMAT_H

#include "sp_common.h"
#include "sp_ctr.h"
#include "sp_h5.h"
#include "sp_inputs.h"
#include "sp_rank.h"
#include "sp_spt.h"
#include "sp_stats.h"
#include "sp_stream.h"
#include "sp_tmp.h"

#endif /* SP_FORMAT_H */
